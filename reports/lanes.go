package reports

import (
	"cmp"
	"slices"
)

// assignLanes puts each exchange of a row on the first lane free when it
// starts (interval partitioning by start time), so a row needs as many lanes
// as exchanges were in flight at once. An exchange occupies at least minDur,
// the time its narrowest mark covers. It returns each exchange's lane and
// each row's lane count.
func assignLanes(ev []Exchange, rowOf func(Exchange) int, rows int, minDur int64) (lane, lanes []int) {
	order := make([]int, len(ev))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ev[a].At, ev[b].At) })
	lane, lanes = make([]int, len(ev)), make([]int, rows)
	ends := make([][]int64, rows) // per row, when each lane is free again
	for _, i := range order {
		e, r := ev[i], rowOf(ev[i])
		at := int64(e.At)
		end := satAdd(at, max(int64(e.Took), minDur, 0))
		l := slices.IndexFunc(ends[r], func(free int64) bool { return free <= at })
		if l < 0 {
			l = len(ends[r])
			ends[r] = append(ends[r], 0)
		}
		ends[r][l], lane[i] = end, l
	}
	for r := range lanes {
		lanes[r] = len(ends[r])
	}
	return lane, lanes
}
