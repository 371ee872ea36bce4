package suites

import (
	"testing"
	"time"
)

// TestSameWindow: an exact reset instant (an epoch reset) names one window;
// Date + t, known only to the second, does so only when the later response
// came a second or more before that window's earliest possible end. Two
// windows of a limiter not aligned to seconds can show one Date + t: at
// 10.05 s a window ending at 11.1 s says t=2 (Date 10), and at 11.5 s the
// next one, ending at 12.1 s, says t=1 (Date 11): both 12.
func TestSameWindow(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(int64(1_800_000_000+s), 0) }
	for _, c := range []struct {
		name       string
		prevEnd    time.Time
		prevExact  bool
		curDate    time.Time
		curEnd     time.Time
		curExact   bool
		wantJudged bool
	}{
		{"exact, equal", at(12), true, at(11), at(12), true, true},
		{"exact, different", at(12), true, at(11), at(13), true, false},
		{"Date + t, two unaligned windows", at(12), false, at(11), at(12), false, false},
		{"Date + t, long window", at(15), false, at(11), at(15), false, true},
		{"Date + t, no Date", at(15), false, time.Time{}, at(15), false, false},
		{"unknown", time.Time{}, false, at(11), time.Time{}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			pv := quotaView{r: 1, end: c.prevEnd, exact: c.prevExact}
			cv := quotaView{r: 2, end: c.curEnd, exact: c.curExact}
			if got := sameWindow(pv, rlObs{date: c.curDate}, cv); got != c.wantJudged {
				t.Errorf("sameWindow = %v; want %v", got, c.wantJudged)
			}
		})
	}
}
