package certify

import (
	"cmp"
	"slices"
	"testing"
	"time"
)

// TestStartable: the first pending check starts whenever its lanes are
// free; while it waits, a later one starts only if it ends by the first's
// reservation or takes lanes the first will not need then.
func TestStartable(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return now.Add(time.Duration(s * float64(time.Second))) }
	// Pending checks by index: P and Q take four lanes, the others one.
	names := []string{"P", "Q", "T7", "T10", "S1", "S3"}
	need := func(i int) int { return cmp.Or(map[string]int{"P": 4, "Q": 4}[names[i]], 1) }
	takes := func(i int) time.Duration {
		return map[string]time.Duration{"P": 4 * time.Second, "Q": 9 * time.Second, "T7": 7 * time.Second, "T10": 10 * time.Second, "S1": time.Second, "S3": 3 * time.Second}[names[i]]
	}
	for _, tt := range []struct {
		name    string
		pending []int
		free    int
		running []hold
		want    []string
	}{
		{"all fit, in order", []int{0, 1, 4}, 10, nil, []string{"P", "Q", "S1"}},
		// Ten lanes, two properties started: the third waits for the
		// first to end at 4 s, with 2 + 4 − 4 = 2 lanes spare then, so
		// the two long checks run on the idle lanes from the start.
		{"spare lanes", []int{1, 2, 3, 4}, 2, []hold{{4, at(4)}, {4, at(8)}}, []string{"T7", "T10"}},
		// No lane spare at the reservation: only a check that ends by
		// it (at 4 s) starts early, the 7 s one waits.
		{"none spare", []int{1, 2, 4, 5}, 1, []hold{{3, at(4)}}, []string{"S1"}},
		{"none spare, S3 ends by it", []int{1, 2, 5}, 1, []hold{{3, at(4)}}, []string{"S3"}},
		// An overdue hold is expected back at once: nothing ends by
		// now, so only spare lanes are lent.
		{"overdue", []int{1, 2, 4}, 1, []hold{{3, at(-1)}}, nil},
		{"overdue, spare", []int{1, 2, 4}, 2, []hold{{3, at(-1)}}, []string{"T7"}},
		{"nothing free", []int{1, 4}, 0, []hold{{4, at(1)}}, nil},
	} {
		var got []string
		for _, k := range startable(now, tt.pending, need, takes, tt.free, tt.running) {
			got = append(got, names[tt.pending[k]])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: startable = %v; want %v", tt.name, got, tt.want)
		}
	}
}

// TestReservation: the first instant enough lanes are back, and every lane
// back by then spare, whatever order holds that end together come in.
func TestReservation(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return now.Add(time.Duration(s) * time.Second) }
	for _, tt := range []struct {
		name  string
		held  []hold
		free  int
		need  int
		when  time.Time
		spare int
	}{
		{"first end enough", []hold{{4, at(3)}, {4, at(5)}}, 2, 5, at(3), 1},
		{"two needed", []hold{{1, at(3)}, {4, at(5)}}, 0, 5, at(5), 0},
		{"ties, small first", []hold{{1, at(3)}, {5, at(3)}}, 0, 1, at(3), 5},
		{"ties, large first", []hold{{5, at(3)}, {1, at(3)}}, 0, 1, at(3), 5},
		{"overdue", []hold{{4, at(-2)}}, 1, 5, now, 0},
	} {
		when, spare := reservation(now, tt.held, tt.free, tt.need)
		if !when.Equal(tt.when) || spare != tt.spare {
			t.Errorf("%s: reservation = %s, %d spare; want %s, %d", tt.name, when.Sub(now), spare, tt.when.Sub(now), tt.spare)
		}
	}
}
