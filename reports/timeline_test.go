package reports

import (
	"slices"
	"testing"
)

func TestAssignLanes(t *testing.T) {
	t.Parallel()
	ex := func(side string, at, took int) Exchange { return Exchange{Side: side, At: ms(at), Took: ms(took)} }
	cases := []struct {
		name      string
		ev        []Exchange
		lane      []int
		lanes     []int
		minDurMS  int
		rowOfSide map[string]int
	}{
		{"sequential exchanges share a lane", []Exchange{ex("front", 0, 10), ex("front", 10, 10), ex("front", 30, 1)},
			[]int{0, 0, 0}, []int{1}, 0, map[string]int{"front": 0}},
		{"four concurrent copies take four lanes", []Exchange{ex("client", 3, 30), ex("client", 0, 40), ex("client", 1, 5), ex("client", 2, 35), ex("client", 6, 1)},
			[]int{3, 0, 1, 2, 1}, []int{4}, 0, map[string]int{"client": 0}},
		{"rows count lanes apart", []Exchange{ex("client", 0, 10), ex("dependency", 2, 3), ex("dependency", 3, 3)},
			[]int{0, 0, 1}, []int{1, 2}, 0, map[string]int{"client": 0, "dependency": 1}},
		{"instants overlap through the mark's width", []Exchange{ex("front", 0, 0), ex("front", 1, 0), ex("front", 5, 0)},
			[]int{0, 1, 0}, []int{2}, 2, map[string]int{"front": 0}},
	}
	for _, c := range cases {
		lane, lanes := assignLanes(c.ev, func(e Exchange) int { return c.rowOfSide[e.Side] }, len(c.lanes), int64(ms(c.minDurMS)))
		if !slices.Equal(lane, c.lane) || !slices.Equal(lanes, c.lanes) {
			t.Errorf("%s: assignLanes = %v, %v; want %v, %v", c.name, lane, lanes, c.lane, c.lanes)
		}
	}
}

// TestNewTimeline_Lanes: the fixture's four concurrent copies get four
// lanes, and no two marks of one lane overlap.
func TestNewTimeline_Lanes(t *testing.T) {
	t.Parallel()
	tl := newTimeline(concurrentEvidence())
	if tl.Lanes != 4 || len(tl.Rows) != 6 {
		t.Fatalf("lanes %d, rows %d; want 4 client lanes and 2 dependency lanes", tl.Lanes, len(tl.Rows))
	}
	for i, a := range tl.Marks {
		for _, b := range tl.Marks[i+1:] {
			if a.Y == b.Y && a.X < b.X+b.W && b.X < a.X+a.W {
				t.Errorf("marks %q and %q overlap on one lane", a.Title, b.Title)
			}
		}
	}
}

// TestTimelineRows_hops: a multi-tier target's evidence gets one row per
// hop, between the front and the dependency, in the order a request
// crosses them.
func TestTimelineRows_hops(t *testing.T) {
	t.Parallel()
	ex := func(side string, at int) Exchange { return Exchange{Side: side, At: ms(at), Took: ms(1)} }
	ev := []Exchange{ex("dependency", 3), ex("hop:service", 2), ex("front", 0), ex("hop:gateway", 1), ex("hop:service", 4), ex("other", 5)}
	rows, _, perCase := timelineRows(ev)
	if want := []string{"front", "hop:gateway", "hop:service", "dependency", "other"}; !slices.Equal(rows, want) || perCase {
		t.Errorf("rows %q (per case %v); want %q", rows, perCase, want)
	}
}
