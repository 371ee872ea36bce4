package headers

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// manyParams is an Item with n distinct parameters: `1;k0;k1;…`.
func manyParams(n int) string {
	var b strings.Builder
	b.WriteString("1")
	for i := range n {
		fmt.Fprintf(&b, ";k%d", i)
	}
	return b.String()
}

// manyMembers is a Dictionary with n distinct keys: `k0, k1, …`.
func manyMembers(n int) string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = fmt.Sprintf("k%d", i)
	}
	return strings.Join(ks, ", ")
}

// TestSFV_limits: RFC 9651 §3.1-3.2 minimums parse; beyond the documented
// limits a field is refused with ErrSyntax.
func TestSFV_limits(t *testing.T) {
	t.Parallel()
	inner := "(" + strings.TrimSpace(strings.Repeat("1 ", MaxSFInnerItems)) + ")"
	ok := []struct {
		name  string
		parse func() error
	}{
		{"256 parameters", func() error { _, err := ParseItem(manyParams(256)); return err }},
		{"MaxSFParams parameters", func() error { _, err := ParseItem(manyParams(MaxSFParams)); return err }},
		{"1024 dictionary members", func() error { _, err := ParseDictionary(manyMembers(1024)); return err }},
		{"MaxSFMembers dictionary members", func() error { _, err := ParseDictionary(manyMembers(MaxSFMembers)); return err }},
		{"MaxSFMembers list members", func() error { _, err := ParseList(manyMembers(MaxSFMembers)); return err }},
		{"MaxSFInnerItems inner items", func() error { _, err := ParseList(inner); return err }},
	}
	for _, c := range ok {
		if err := c.parse(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	bad := []struct {
		name  string
		parse func() error
	}{
		{"MaxSFParams+1 parameters", func() error { _, err := ParseItem(manyParams(MaxSFParams + 1)); return err }},
		{"65536 parameters", func() error { _, err := ParseItem(manyParams(1 << 16)); return err }},
		{"MaxSFMembers+1 dictionary members", func() error { _, err := ParseDictionary(manyMembers(MaxSFMembers + 1)); return err }},
		{"MaxSFMembers+1 list members", func() error { _, err := ParseList(manyMembers(MaxSFMembers + 1)); return err }},
		{"MaxSFInnerItems+1 inner items", func() error { _, err := ParseList(inner[:len(inner)-1] + " 1)"); return err }},
		{"a repeated key past the limit", func() error { _, err := ParseItem("1" + strings.Repeat(";a", 1<<16)); return err }},
	}
	for _, c := range bad {
		if err := c.parse(); !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: error = %v; want ErrSyntax", c.name, err)
		}
	}
}

// BenchmarkParseItem_params and BenchmarkParseDictionary_members show the
// cost per parameter or member stays flat as the count grows 4x (linear
// parsing); the 65536 cases are refused at the limit.
func BenchmarkParseItem_params(b *testing.B) {
	for _, n := range []int{256, 1024, 1 << 16} {
		v := manyParams(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				_, _ = ParseItem(v)
			}
		})
	}
}

func BenchmarkParseDictionary_members(b *testing.B) {
	for _, n := range []int{1024, 4096, 1 << 16} {
		v := manyMembers(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				_, _ = ParseDictionary(v)
			}
		})
	}
}

// TestSFV_errorExcerpt: an error quotes a bounded excerpt of a huge field.
func TestSFV_errorExcerpt(t *testing.T) {
	t.Parallel()
	for _, v := range []string{manyParams(1 << 16), strings.Repeat("a", 1<<20) + "\x01"} {
		_, err := ParseItem(v)
		if err == nil || len(err.Error()) > 512 {
			t.Errorf("ParseItem(%d bytes) error is %d bytes; want at most 512", len(v), len(err.Error()))
		}
	}
}
