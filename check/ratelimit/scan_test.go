package ratelimit

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/resilcheck/resilcheck/check"
	"github.com/resilcheck/resilcheck/faults"
)

// lastEntries is the tail of entriesOf: own replies, which have no entry,
// are skipped wherever they fall, and fewer entries than n give them all.
func TestLastEntries_tailOfEntriesOf(t *testing.T) {
	t.Parallel()
	obs := func(pattern string) []check.Observation {
		var out []check.Observation
		for i, c := range pattern {
			o := check.Observation{Source: fmt.Sprint(i)}
			if c == 'j' {
				o.Entry = &faults.Entry{Seq: uint64(i + 1), ID: fmt.Sprintf("front-%d", i)}
			}
			out = append(out, o)
		}
		return out
	}
	for _, pattern := range []string{"", "o", "j", "jjj", "oooo", "jojojojojojojojojojojo", "jjjjjjjjjjjjjjjoooo", "oooojjjjjjjjjjjjjj", "jjjjjjjjjj", "ojjjjjjjjjj"} {
		for _, n := range []int{0, 1, 3, 10, 30} {
			all := entriesOf(obs(pattern))
			want := all[max(0, len(all)-n):]
			got := lastEntries(obs(pattern), n)
			if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Errorf("lastEntries(%q, %d) = %v; want %v", pattern, n, got, want)
			}
		}
	}
}
