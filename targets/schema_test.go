package targets

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSchema_matchesStructs fails when a spec field is added, renamed or
// removed in Go without the same change in schema.json, or the other way round.
func TestSchema_matchesStructs(t *testing.T) {
	t.Parallel()
	var root map[string]any
	if err := json.Unmarshal(Schema, &root); err != nil {
		t.Fatalf("schema.json is not JSON: %v", err)
	}
	defs, _ := root["$defs"].(map[string]any)
	var walk func(typ reflect.Type, node map[string]any, path string)
	walk = func(typ reflect.Type, node map[string]any, path string) {
		if ref, ok := node["$ref"].(string); ok {
			node, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		switch {
		case typ.Kind() == reflect.Pointer:
			walk(typ.Elem(), node, path)
		case typ == durationType || typ.Kind() == reflect.String:
			if node["type"] != "string" {
				t.Errorf("%s: schema type %v; want string", path, node["type"])
			}
		case typ.Kind() == reflect.Int:
			if node["type"] != "integer" {
				t.Errorf("%s: schema type %v; want integer", path, node["type"])
			}
		case typ.Kind() == reflect.Float64:
			if node["type"] != "number" {
				t.Errorf("%s: schema type %v; want number", path, node["type"])
			}
		case typ.Kind() == reflect.Bool:
			if node["type"] != "boolean" {
				t.Errorf("%s: schema type %v; want boolean", path, node["type"])
			}
		case typ.Kind() == reflect.Slice:
			items, _ := node["items"].(map[string]any)
			walk(typ.Elem(), items, path+"[]")
		case typ.Kind() == reflect.Map:
			ap, _ := node["additionalProperties"].(map[string]any)
			walk(typ.Elem(), ap, path+".*")
		case typ.Kind() == reflect.Struct:
			if node["type"] != "object" || node["additionalProperties"] != false {
				t.Errorf("%s: schema must be an object with additionalProperties: false", path)
			}
			props, _ := node["properties"].(map[string]any)
			names := fieldNames(typ)
			for _, name := range names {
				sub, ok := props[name].(map[string]any)
				if !ok {
					t.Errorf("schema.json lacks %s", join(path, name))
					continue
				}
				walk(yamlFields(typ)[name].Type, sub, join(path, name))
			}
			for name := range props {
				if !slices.Contains(names, name) {
					t.Errorf("schema.json has %s, which no Go field decodes", join(path, name))
				}
			}
		default:
			t.Errorf("%s: no schema check for %s", path, typ)
		}
	}
	walk(targetType, root, "")
}

func TestSchema_enums(t *testing.T) {
	t.Parallel()
	var root struct {
		Properties struct {
			Kind        struct{ Enum []string }
			Conventions struct {
				Properties struct {
					Profile   struct{ Enum []string }
					KeyFormat struct{ Enum []string } `json:"key_format"`
				}
			}
		}
	}
	if err := json.Unmarshal(Schema, &root); err != nil {
		t.Fatal(err)
	}
	p := root.Properties
	checks := []struct {
		name      string
		got, want []string
	}{
		{"kind", p.Kind.Enum, []string{string(KindRunning), string(KindProcess), string(KindReference), string(KindCompose), string(KindClient)}},
		{"profile", p.Conventions.Properties.Profile.Enum, []string{string(ProfileIETF), string(ProfileStripe)}},
		{"key_format", p.Conventions.Properties.KeyFormat.Enum, []string{string(KeyToken), string(KeySFString)}},
	}
	for _, c := range checks {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("schema %s enum = %v; want %v", c.name, c.got, c.want)
		}
	}
}
