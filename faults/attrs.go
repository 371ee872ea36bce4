package faults

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Attributes are decoded by hand rather than by encoding/json or yaml so that
// one strict decoder serves both formats, durations read as "250ms", and an
// unknown key names the keys that would have been accepted.

var durationType = reflect.TypeFor[time.Duration]()

// attrFields lists the tagged fields of struct type t as tag → field index.
func attrFields(t reflect.Type) map[string]int {
	fields := map[string]int{}
	for i := range t.NumField() {
		if tag, ok := t.Field(i).Tag.Lookup("attr"); ok && tag != "-" {
			fields[tag] = i
		}
	}
	return fields
}

// decodeAttrs sets the `attr`-tagged fields of the struct dst points to from
// m. Unknown keys and ill-typed values are *AttrError.
func decodeAttrs(dst any, m map[string]any) error {
	v := reflect.ValueOf(dst).Elem()
	fields := attrFields(v.Type())
	for key, raw := range m {
		i, ok := fields[key]
		if !ok {
			return &AttrError{Path: []string{key}, Err: fmt.Errorf("unknown attribute (known: %s)", knownKeys(fields))}
		}
		if err := setAttr(v.Field(i), raw); err != nil {
			return within(key, err)
		}
	}
	return nil
}

func knownKeys(fields map[string]int) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

func setAttr(f reflect.Value, raw any) error {
	if raw == nil {
		return nil
	}
	switch {
	case f.Type() == durationType:
		d, err := toDuration(raw)
		f.SetInt(int64(d))
		return err
	case f.Kind() == reflect.String:
		s, ok := raw.(string)
		if !ok {
			return fmt.Errorf("want a string, got %s", kindOf(raw))
		}
		f.SetString(s)
	case f.Kind() == reflect.Bool:
		b, ok := raw.(bool)
		if !ok {
			return fmt.Errorf("want true or false, got %s", kindOf(raw))
		}
		f.SetBool(b)
	case f.CanInt():
		n, err := toFloat(raw)
		if err != nil || n != math.Trunc(n) || f.OverflowInt(int64(n)) {
			return fmt.Errorf("want an integer, got %v", raw)
		}
		f.SetInt(int64(n))
	case f.CanUint():
		n, err := toFloat(raw)
		if err != nil || n < 0 || n != math.Trunc(n) || f.OverflowUint(uint64(n)) {
			return fmt.Errorf("want a non-negative integer, got %v", raw)
		}
		f.SetUint(uint64(n))
	case f.CanFloat():
		n, err := toFloat(raw)
		if err != nil {
			return err
		}
		f.SetFloat(n)
	case f.Kind() == reflect.Map && f.Type().Elem().Kind() == reflect.String:
		return setStringMap(f, raw)
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
		return setStringSlice(f, raw)
	default:
		return fmt.Errorf("unsupported attribute type %s", f.Type())
	}
	return nil
}

func setStringMap(f reflect.Value, raw any) error {
	m, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("want a mapping, got %s", kindOf(raw))
	}
	out := reflect.MakeMapWithSize(f.Type(), len(m))
	for k, v := range m {
		s, err := scalarString(v)
		if err != nil {
			return &AttrError{Path: []string{k}, Err: err}
		}
		out.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(s))
	}
	f.Set(out)
	return nil
}

func setStringSlice(f reflect.Value, raw any) error {
	list, ok := raw.([]any)
	if !ok {
		if s, ok := raw.(string); ok {
			list = []any{s}
		} else {
			return fmt.Errorf("want a list, got %s", kindOf(raw))
		}
	}
	out := reflect.MakeSlice(f.Type(), len(list), len(list))
	for i, v := range list {
		s, err := scalarString(v)
		if err != nil {
			return err
		}
		out.Index(i).SetString(s)
	}
	f.Set(out)
	return nil
}

// scalarString accepts numbers and booleans for string values, because YAML
// users write `Retry-After: 1` and mean the string "1".
func scalarString(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(v), nil
	}
	return "", fmt.Errorf("want a string, got %s", kindOf(v))
}

func toFloat(raw any) (float64, error) {
	switch v := raw.(type) {
	case int:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case uint64:
		return float64(v), nil
	case float64:
		return v, nil
	case json.Number:
		return v.Float64()
	}
	return 0, fmt.Errorf("want a number, got %s", kindOf(raw))
}

// toDuration reads "250ms"-style strings; a bare number is milliseconds.
func toDuration(raw any) (time.Duration, error) {
	if s, ok := raw.(string); ok {
		if ms, err := strconv.ParseFloat(s, 64); err == nil {
			return time.Duration(ms * float64(time.Millisecond)), nil
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, errors.New(`want a duration such as "250ms" or "1.5s"`)
		}
		return d, nil
	}
	ms, err := toFloat(raw)
	if err != nil {
		return 0, errors.New(`want a duration such as "250ms" or "1.5s"`)
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

// encodeAttrs is the inverse of decodeAttrs, omitting zero values.
func encodeAttrs(src any) map[string]any {
	v := reflect.Indirect(reflect.ValueOf(src))
	out := map[string]any{}
	for key, i := range attrFields(v.Type()) {
		f := v.Field(i)
		if f.IsZero() {
			continue
		}
		switch {
		case f.Type() == durationType:
			out[key] = time.Duration(f.Int()).String()
		case f.Kind() == reflect.Map && f.Len() == 0, f.Kind() == reflect.Slice && f.Len() == 0:
		default:
			out[key] = f.Interface()
		}
	}
	return out
}

// kindOf names a decoded YAML or JSON value's kind in the rules' terms, so
// an error never shows a Go type to someone who wrote YAML.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "true or false"
	case int, int64, uint64, float64, json.Number:
		return "a number"
	}
	return "a value of another kind"
}
