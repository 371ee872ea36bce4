package headers

import "fmt"

// Size limits of the structured-field parser. RFC 9651 §3.1-3.2 oblige a
// parser to support at least 1024 List or Dictionary members, 256 Inner List
// members and 256 parameters; these are 4x those, and a field beyond them is
// refused with ErrSyntax rather than parsed at any length a peer chooses.
const (
	MaxSFMembers    = 4096 // members of one List or Dictionary
	MaxSFInnerItems = 1024 // items of one Inner List
	MaxSFParams     = 1024 // parameters of one Item or Inner List
)

// keyIndex finds a repeated key in constant time, so de-duplicating n
// parameters or members is linear rather than quadratic.
type keyIndex map[string]int

// add records key at position i unless it is already there; it returns the
// earlier position and true for a repeated key.
func (x *keyIndex) add(key string, i int) (int, bool) {
	if *x == nil {
		*x = keyIndex{}
	}
	if j, ok := (*x)[key]; ok {
		return j, true
	}
	(*x)[key] = i
	return i, false
}

// maxExcerpt bounds how much of a field an error message quotes: a hostile
// peer's megabyte-long field must not become a megabyte of report evidence.
const maxExcerpt = 128

// excerpt returns v, or its first maxExcerpt bytes and a count of the rest.
func excerpt(v string) string {
	if len(v) <= maxExcerpt {
		return v
	}
	return fmt.Sprintf("%s… (%d more bytes)", v[:maxExcerpt], len(v)-maxExcerpt)
}
