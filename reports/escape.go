package reports

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// escapeMode says which characters a format cannot show as they are.
type escapeMode int

const (
	// escapeInvalid rewrites bytes that are not UTF-8, for JSON, which
	// would otherwise turn each into U+FFFD and lose the byte.
	escapeInvalid escapeMode = iota
	// escapeControls also rewrites control characters other than tab and
	// line breaks, for text a person reads: a terminal would act on them,
	// and HTML and XML forbid most of them.
	escapeControls
)

// escapeText returns s as valid UTF-8: a byte that is not UTF-8 becomes
// \xNN, and under escapeControls a C0 control or DEL becomes \xNN and a C1
// control \u00NN. A harness sends malformed header values on purpose, so
// the report must show them, not break on them. Valid text is returned as is.
func escapeText(s string, mode escapeMode) string {
	if !needsEscape(s, mode) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02X`, s[i])
		case mode == escapeControls && isControl(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02X`, r)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(s string, mode escapeMode) bool {
	if !utf8.ValidString(s) {
		return true
	}
	if mode == escapeControls {
		for _, r := range s {
			if isControl(r) {
				return true
			}
		}
	}
	return false
}

// isControl is a C0 control other than tab, LF and CR, DEL, or a C1 control.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || (r >= 0x7F && r <= 0x9F)
}

// escaped returns a deep copy of r whose every string (map keys included)
// went through escapeText, or r itself when none needed it. Writers render
// the copy, so their output is valid UTF-8 whatever a target sent.
func escaped(r *Report, mode escapeMode) *Report {
	v := reflect.ValueOf(r).Elem()
	if !valueNeedsEscape(v, mode) {
		return r
	}
	out := new(Report)
	reflect.ValueOf(out).Elem().Set(escapeValue(v, mode))
	return out
}

func valueNeedsEscape(v reflect.Value, mode escapeMode) bool {
	switch v.Kind() {
	case reflect.String:
		return needsEscape(v.String(), mode)
	case reflect.Pointer:
		return !v.IsNil() && valueNeedsEscape(v.Elem(), mode)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && valueNeedsEscape(v.Field(i), mode) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if valueNeedsEscape(v.Index(i), mode) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if valueNeedsEscape(it.Key(), mode) || valueNeedsEscape(it.Value(), mode) {
				return true
			}
		}
	}
	return false
}

// escapeValue copies v, escaping strings; kinds holding no string are
// copied as they are.
func escapeValue(v reflect.Value, mode escapeMode) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		s := reflect.New(v.Type()).Elem()
		s.SetString(escapeText(v.String(), mode))
		return s
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(escapeValue(v.Elem(), mode))
		return p
	case reflect.Struct:
		s := reflect.New(v.Type()).Elem()
		s.Set(v) // unexported fields and non-string kinds as they are
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				s.Field(i).Set(escapeValue(v.Field(i), mode))
			}
		}
		return s
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		s := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			s.Index(i).Set(escapeValue(v.Index(i), mode))
		}
		return s
	case reflect.Array:
		s := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			s.Index(i).Set(escapeValue(v.Index(i), mode))
		}
		return s
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			m.SetMapIndex(escapeValue(it.Key(), mode), escapeValue(it.Value(), mode))
		}
		return m
	}
	return v
}
