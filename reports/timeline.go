package reports

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"
)

// Timeline geometry, in SVG user units. Coordinates are computed in integer
// tenths of a unit so the plot is identical on every platform (floating
// point may fuse operations differently per architecture).
const (
	tlLabelW = 170 // left margin holding the row labels
	tlPlotW  = 640
	tlLaneH  = 18 // one lane: a mark and the space around it
	tlMarkH  = 12
	tlGapH   = 6 // between the lanes of two rows
	tlTop    = 8
	tlAxisH  = 26
	tlMinW   = 30 // narrowest mark, so an instant exchange stays visible
	tlMaxLbl = 26 // characters of a row label before it is cut
)

// tenths is a length in tenths of an SVG unit; it prints as a decimal.
type tenths int64

func (t tenths) String() string {
	sign := ""
	if t < 0 {
		sign, t = "-", -t
	}
	if t%10 == 0 {
		return fmt.Sprintf("%s%d", sign, t/10)
	}
	return fmt.Sprintf("%s%d.%d", sign, t/10, t%10)
}

// timeline is the data an inline SVG plot of one check's evidence needs:
// x is the time offset from the first exchange; one row per side (or case
// and side), split into lanes so exchanges that overlap in time, such as
// concurrent copies of one request, never hide one another.
type timeline struct {
	Width, Height tenths
	PlotX, PlotW  tenths
	PlotEnd       tenths // PlotX + PlotW
	AxisY         tenths // the time axis; ticks run down to TickY, labels sit at LabelY
	TickY, LabelY tenths
	Origin        string // run offset of x = 0, e.g. "+1.2s"
	Lanes         int    // most lanes any row needed: the peak concurrency seen
	Rows          []tlRow
	Marks         []tlMark
	Starts        string // SVG path of a short line at each mark's start: "M170 12V24M..."
	Ticks         []tlTick
}

// tlRow is one lane; only a row's first lane carries its label.
type tlRow struct {
	Label, Full    string
	Y, TextY, MidY tenths
}

type tlMark struct {
	X, Y, W, H tenths
	Class      string
	Title      string
}

type tlTick struct {
	X     tenths
	Label string
}

// sideRank orders the sides as a request travels: client, front, the hops
// between tiers ("hop:TIER"), dependency.
var sideRank = map[string]int{"client": 0, "front": 1, "hop:": 2, "dependency": 3}

// rankOf is side's place in sideRank, and whether it has one.
func rankOf(side string) (int, bool) {
	if strings.HasPrefix(side, "hop:") {
		side = "hop:"
	}
	r, ok := sideRank[side]
	return r, ok
}

// newTimeline lays out evidence; it returns nil when there is nothing to
// plot. Offsets are arbitrary int64 values (a report may come from anywhere),
// so the arithmetic saturates instead of overflowing.
func newTimeline(ev []Exchange) *timeline {
	if len(ev) == 0 {
		return nil
	}
	start, end := int64(ev[0].At), int64(ev[0].At)
	for _, e := range ev {
		start = min(start, int64(e.At))
		end = max(end, satAdd(int64(e.At), max(int64(e.Took), 0)))
	}
	span := max(uint64(end)-uint64(start), uint64(time.Millisecond)) // end >= start, so the difference fits
	rows, rowOf, perCase := timelineRows(ev)
	minDur := tenths(tlMinW).scale(span, tlPlotW*10) // the time, in ns, the narrowest mark covers
	lane, lanes := assignLanes(ev, func(e Exchange) int { return rowOf[rowKey(e, perCase)] }, len(rows), int64(minDur))
	tl := &timeline{PlotX: tlLabelW * 10, PlotW: tlPlotW * 10, Width: (tlLabelW + tlPlotW + 20) * 10, Origin: offset(Duration(start))}
	tl.PlotEnd = tl.PlotX + tl.PlotW
	laneY := make([]tenths, len(rows)) // Y of each row's first lane
	y := tenths(tlTop * 10)
	for i, key := range rows {
		laneY[i] = y
		label := key
		if r := []rune(label); len(r) > tlMaxLbl {
			label = string(r[:tlMaxLbl-1]) + "…"
		}
		for l := range lanes[i] {
			row := tlRow{Y: y, TextY: y + 130, MidY: y + tlLaneH*5}
			if l == 0 {
				row.Label, row.Full = label, key
			}
			tl.Rows = append(tl.Rows, row)
			y += tlLaneH * 10
		}
		tl.Lanes = max(tl.Lanes, lanes[i])
		y += tlGapH * 10
	}
	tl.AxisY = y - tlGapH*10 + 40
	tl.Height = tl.AxisY + tlAxisH*10
	tl.TickY, tl.LabelY = tl.AxisY+40, tl.AxisY+160
	scale := func(d uint64) tenths { return tl.PlotW.scale(min(d, span), span) }
	var starts strings.Builder // one path for every start line: a line element each would double the plot's size
	for i, e := range ev {
		x := tl.PlotX + scale(uint64(int64(e.At))-uint64(start))
		w := max(scale(uint64(max(int64(e.Took), 0))), tlMinW)
		w = min(w, tl.PlotEnd+100-x) // never past the right edge
		my := laneY[rowOf[rowKey(e, perCase)]] + tenths(lane[i])*tlLaneH*10 + (tlLaneH-tlMarkH)*5
		tl.Marks = append(tl.Marks, tlMark{X: x, Y: my, W: w, H: tlMarkH * 10, Class: markClass(e), Title: markTitle(e)})
		starts.WriteString("M" + x.String() + " " + my.String() + "V" + (my + tlMarkH*10).String())
	}
	tl.Starts = starts.String()
	tl.Ticks = timelineTicks(span, scale, tl.PlotX)
	return tl
}

// scale returns t * d / span for d <= span without overflow.
func (t tenths) scale(d, span uint64) tenths {
	hi, lo := bits.Mul64(d, uint64(t))
	q, _ := bits.Div64(hi, lo, span) // hi < span because d*t/span <= t
	return tenths(q)
}

// satAdd is a + b clamped to the int64 range, for b >= 0.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// offset formats a run offset with an explicit sign: "+1.2s", "-3ms".
func offset(d Duration) string {
	if d < 0 {
		return short(d)
	}
	return "+" + short(d)
}

// timelineRows picks the rows: one per side, or one per (case, side) when
// the evidence spans several cases. Cases keep their order of first
// appearance; sides go client, front, dependency, then others by name.
func timelineRows(ev []Exchange) (rows []string, index map[string]int, perCase bool) {
	var cases []string
	for _, e := range ev {
		if !slices.Contains(cases, e.Case) {
			cases = append(cases, e.Case)
		}
	}
	perCase = len(cases) > 1
	type rk struct {
		caseIdx int
		side    string
	}
	// Hops sort among themselves by their first exchange: a request
	// crosses them in order.
	firstAt := map[string]Duration{}
	for _, e := range ev {
		if at, ok := firstAt[e.Side]; !ok || e.At < at {
			firstAt[e.Side] = e.At
		}
	}
	var keys []rk
	for _, e := range ev {
		k := rk{side: e.Side}
		if perCase {
			k.caseIdx = slices.Index(cases, e.Case)
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.SortStableFunc(keys, func(a, b rk) int {
		if a.caseIdx != b.caseIdx {
			return a.caseIdx - b.caseIdx
		}
		ra, oka := rankOf(a.side)
		rb, okb := rankOf(b.side)
		switch {
		case oka && okb && ra == rb:
			return cmp.Compare(firstAt[a.side], firstAt[b.side])
		case oka && okb:
			return ra - rb
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		}
		return strings.Compare(a.side, b.side)
	})
	rows = make([]string, len(keys))
	index = make(map[string]int, len(keys))
	for i, k := range keys {
		rows[i] = rowKey(Exchange{Side: k.side, Case: cases[k.caseIdx]}, perCase)
		index[rows[i]] = i
	}
	return rows, index, perCase
}

// rowKey names the row an exchange belongs to.
func rowKey(e Exchange, perCase bool) string {
	side := e.Side
	if side == "" {
		side = "?"
	}
	if !perCase {
		return side
	}
	c := e.Case
	if c == "" {
		c = "(no case)"
	}
	return c + " · " + side
}

// markClass colours a mark by status class; a fault adds an outline.
func markClass(e Exchange) string {
	c := "st-none"
	switch {
	case e.Status >= 500:
		c = "st-5xx"
	case e.Status == 429:
		c = "st-429"
	case e.Status >= 400:
		c = "st-4xx"
	case e.Status >= 300:
		c = "st-3xx"
	case e.Status >= 100:
		c = "st-2xx"
	}
	if e.Fault != "" {
		c += " faulted"
	}
	return c
}

// timelineTicks places at most six ticks at a 1-2-5 step over the span.
func timelineTicks(span uint64, scale func(uint64) tenths, x0 tenths) []tlTick {
	step := span
	for mag := uint64(1); mag <= math.MaxUint64/50; mag *= 10 {
		if s := pickStep(mag, span); s > 0 {
			step = s
			break
		}
	}
	var ticks []tlTick
	for t := uint64(0); ; t += step {
		ticks = append(ticks, tlTick{X: x0 + scale(t), Label: offset(Duration(min(t, math.MaxInt64)))})
		if t > span-step {
			return ticks
		}
	}
}

// pickStep returns the first of 1, 2, 5 times mag that divides span into at
// most five intervals, or 0 if none does.
func pickStep(mag, span uint64) uint64 {
	for _, m := range []uint64{1, 2, 5} {
		if span/(m*mag) <= 5 {
			return m * mag
		}
	}
	return 0
}

// markTitle is a mark's tooltip: the exchange without its headers and note,
// which the evidence table below the plot shows.
func markTitle(e Exchange) string {
	e.Headers, e.Note = nil, ""
	return exchangeLine(e)
}
