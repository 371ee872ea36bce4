package reports

import "testing"

func TestSafeName(t *testing.T) {
	for _, c := range []struct{ in, keep, want string }{
		{"IK-07", "-_.", "IK-07"},
		{"../x y", "-_.", ".._x_y"},
		{"RB-01+HS-08", "+-_.", "RB-01+HS-08"},
		{"RB-01+HS-08", "-_.", "RB-01_HS-08"},
		{"café/ü", "-_.", "caf___"},
		{"a\u2024b", "\u2024", "a_b"}, // keep holds ASCII only
	} {
		if got := SafeName(c.in, c.keep); got != c.want {
			t.Errorf("SafeName(%q, %q) = %q; want %q", c.in, c.keep, got, c.want)
		}
	}
}
