package reports

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func exchanges(n int, faultAt ...int) []Exchange {
	ev := make([]Exchange, n)
	for i := range ev {
		ev[i] = Exchange{ID: uint64(i + 1), Side: "front", Status: 200, At: ms(10 * i), Took: ms(5)}
	}
	for _, i := range faultAt {
		ev[i].Fault, ev[i].Status = "status-503", 503
	}
	return ev
}

func ids(ev []Exchange) []uint64 {
	out := make([]uint64, len(ev))
	for i, e := range ev {
		out[i] = e.ID
	}
	return out
}

func TestSampleEvidence(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		ev    []Exchange
		limit int
		want  []uint64
	}{
		{"short evidence is kept whole", exchanges(3), 5, []uint64{1, 2, 3}},
		{"no fault: the last first, then the first", exchanges(10), 4, []uint64{1, 2, 9, 10}},
		{"a fault keeps its neighbours", exchanges(20, 9), 7, []uint64{7, 8, 9, 10, 11, 12, 13}},
		{"two faults share the budget", exchanges(30, 4, 20), 8, []uint64{3, 4, 5, 6, 7, 20, 21, 22}},
	}
	for _, c := range cases {
		got := ids(SampleEvidence(c.ev, c.limit))
		slices.Sort(c.want)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: SampleEvidence(%d exchanges, %d) kept %v; want %v", c.name, len(c.ev), c.limit, got, c.want)
		}
	}
}

// TestSampleEvidence_Properties: the sample is an in-order subsequence of at
// most limit exchanges, and keeps at least one fault when there is one.
func TestSampleEvidence_Properties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 300).Draw(t, "n")
		faults := rapid.SliceOfNDistinct(rapid.IntRange(0, max(n-1, 0)), 0, min(n, 60), rapid.ID[int]).Draw(t, "faults")
		limit := rapid.IntRange(1, 50).Draw(t, "limit")
		ev := exchanges(n, faults...)
		got := SampleEvidence(ev, limit)
		if len(got) != min(n, limit) {
			t.Fatalf("kept %d of %d with limit %d", len(got), n, limit)
		}
		if !slices.IsSorted(ids(got)) {
			t.Fatalf("sample out of order: %v", ids(got))
		}
		if len(faults) > 0 && limit >= 2 && !slices.ContainsFunc(got, func(e Exchange) bool { return e.Fault != "" }) {
			t.Fatalf("no fault kept of %d", len(faults))
		}
	})
}

func TestNewLoad(t *testing.T) {
	t.Parallel()
	if NewLoad(exchanges(loadMinExchanges-1)) != nil {
		t.Errorf("NewLoad of %d exchanges is not nil", loadMinExchanges-1)
	}
	if burst := exchanges(300); NewLoad(burst[:100]) != nil || NewLoad(burst[:101]) == nil {
		t.Errorf("NewLoad of 100 exchanges over 990 ms is not nil, or of 101 over 1 s is")
	}
	ev := exchanges(200) // 10 ms apart: 2 s
	for i := 100; i < 150; i++ {
		ev[i].Status, ev[i].Took = 429, ms(1)
	}
	ev = append(ev, Exchange{Side: "dependency", Status: 0, At: ms(1000), Took: ms(40)})
	l := NewLoad(ev)
	if l == nil {
		t.Fatal("NewLoad of 201 exchanges is nil")
	}
	if l.Bucket != Duration(50*time.Millisecond) || len(l.Sides) != 2 || l.Sides[0].Side != "front" {
		t.Fatalf("bucket %s, sides %+v; want 50ms, front then dependency", l.Bucket, l.Sides)
	}
	front := l.Sides[0].Points
	if len(front) != 40 || front[0] != (LoadPoint{OK: 5, P50: ms(5), Max: ms(5)}) || front[21] != (LoadPoint{Refused: 5, P50: ms(1), Max: ms(1)}) {
		t.Errorf("front points %+v", front)
	}
	if p := l.Sides[1].Points[20]; p != (LoadPoint{Failed: 1, P50: ms(40), Max: ms(40)}) {
		t.Errorf("dependency point at 1s = %+v", p)
	}
}
