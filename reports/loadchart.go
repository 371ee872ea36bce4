package reports

import (
	"fmt"
	"math"
	"time"
)

// Load chart geometry, in SVG units; like the timeline it shares the label
// margin and plot width, and computes in tenths.
const (
	lcRateH  = 64 // height of a requests-per-second panel
	lcLatH   = 44 // height of a latency panel
	lcGapH   = 22 // above each panel, holding its title
	lcBarGap = 2  // tenths between two bars
)

// loadChart is what the template needs to draw a check's Load: per side a
// panel of stacked bars (ok, refused, failed per second) and a panel of
// latency bars (median, with the longest as a tick).
type loadChart struct {
	Width, Height        tenths
	PlotX, PlotEnd       tenths
	AxisY, TickY, LabelY tenths
	Origin               string
	Panels               []lcPanel
	Ticks                []tlTick
}

type lcPanel struct {
	Title        string
	TitleY, Base tenths // Base is the panel's zero line
	Top          tenths
	Max          string // value at the top of the panel
	Buckets      []lcBucket
}

// lcBucket is the bars of one bucket, sharing one tooltip.
type lcBucket struct {
	Title string
	Bars  []lcBar
}

type lcBar struct {
	X, Y, W, H tenths
	Class      string
}

// newLoadChart lays out l; it returns nil when l has nothing to draw.
func newLoadChart(l *Load) *loadChart {
	if l == nil || l.Bucket <= 0 || len(l.Sides) == 0 {
		return nil
	}
	n := 0
	for _, s := range l.Sides {
		n = max(n, len(s.Points))
	}
	if n == 0 {
		return nil
	}
	lc := &loadChart{PlotX: tlLabelW * 10, PlotEnd: (tlLabelW + tlPlotW) * 10,
		Width: (tlLabelW + tlPlotW + 20) * 10, Origin: offset(l.Start)}
	plotW := tenths(tlPlotW * 10)
	barX := func(i int) tenths { return lc.PlotX + plotW.scale(uint64(i), uint64(n)) }
	y := tenths(0)
	for _, s := range l.Sides {
		rate := lcPanel{Title: s.Side + ": requests per second (ok, refused 429, failed)", TitleY: y + 150, Top: y + lcGapH*10}
		rate.Base = rate.Top + lcRateH*10
		lat := lcPanel{Title: s.Side + ": latency (median; tick: slowest)", Top: rate.Base + lcGapH*10}
		lat.TitleY, lat.Base = rate.Base+150, lat.Top+lcLatH*10
		y = lat.Base
		peak, slowest := 1.0, Duration(0)
		for _, p := range s.Points {
			peak, slowest = max(peak, barTotal(p)), max(slowest, p.Max)
		}
		rate.Max = perSecond(peak, l.Bucket)
		lat.Max = short(slowest)
		for i, p := range s.Points {
			x, w := barX(i), max(barX(i+1)-barX(i)-lcBarGap, 1)
			title := fmt.Sprintf("%s: %d sent (%d ok, %d refused, %d failed); median %s, slowest %s",
				offset(l.Start+Duration(i)*l.Bucket), p.Sent(), p.OK, p.Refused, p.Failed, short(p.P50), short(p.Max))
			rb, lb := lcBucket{Title: title}, lcBucket{Title: title}
			base := rate.Base
			for _, part := range []struct {
				n     int
				class string
			}{{p.OK, "st-2xx"}, {p.Refused, "st-429"}, {p.Failed, "st-5xx"}} {
				// Floored, a bar's parts never stack above its total's share.
				h := tenths(math.Floor(lcRateH * 10 * float64(max(part.n, 0)) / peak))
				if h > 0 {
					base -= h
					rb.Bars = append(rb.Bars, lcBar{X: x, Y: base, W: w, H: h, Class: part.class})
				}
			}
			if slowest > 0 && p.Max > 0 {
				scale := func(d Duration) tenths {
					return tenths(lcLatH*10).scale(uint64(min(max(d, 0), slowest)), uint64(slowest))
				}
				h := scale(p.P50)
				lb.Bars = append(lb.Bars, lcBar{X: x, Y: lat.Base - h, W: w, H: h, Class: "lat"},
					lcBar{X: x, Y: lat.Base - scale(p.Max), W: w, H: 10, Class: "lat-max"})
			}
			if len(rb.Bars) > 0 {
				rate.Buckets = append(rate.Buckets, rb)
			}
			if len(lb.Bars) > 0 {
				lat.Buckets = append(lat.Buckets, lb)
			}
		}
		lc.Panels = append(lc.Panels, rate, lat)
	}
	lc.AxisY = y + 40
	lc.TickY, lc.LabelY, lc.Height = lc.AxisY+40, lc.AxisY+160, lc.AxisY+tlAxisH*10
	span := uint64(l.Bucket) * uint64(n)
	if span/uint64(n) != uint64(l.Bucket) {
		span = math.MaxUint64 // a bucket from nowhere; the ticks still end
	}
	lc.Ticks = timelineTicks(span, func(d uint64) tenths { return plotW.scale(min(d, span), span) }, lc.PlotX)
	return lc
}

// barTotal is the height of a point's stacked bar: its counts, a negative
// one (from a hand-edited report) taken as zero. In float64, as the bars
// are scaled: three ints can exceed a uint64, and a sum that wrapped would
// put a bar's parts above the chart's peak.
func barTotal(p LoadPoint) float64 {
	return float64(max(p.OK, 0)) + float64(max(p.Refused, 0)) + float64(max(p.Failed, 0))
}

// perSecond is count per bucket as a rate, e.g. "120/s".
func perSecond(count float64, bucket Duration) string {
	return fmt.Sprintf("%.0f/s", count/time.Duration(bucket).Seconds())
}
