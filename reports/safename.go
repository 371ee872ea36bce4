package reports

import "strings"

// SafeName maps every character of s but ASCII letters, digits and those
// in keep to '_': a name that is safe as an HTML id, in a URL fragment and
// as a file name on every system, and that two runs spell alike.
func SafeName(s, keep string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r < 0x80 && strings.ContainsRune(keep, r):
			return r
		}
		return '_'
	}, s)
}
