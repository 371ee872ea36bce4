package check

import (
	"strings"

	"github.com/resilcheck/resilcheck/faults"
)

// Hop is the proxy between two tiers of a multi-tier target (spec tiers):
// the tier From calls the tier To through it. It journals its exchanges as
// side HopSide(To), and checks fail, hang or count the requests one tier
// sends the next there.
type Hop struct {
	From, To string
	Proxy    *faults.Proxy
}

// hopPrefix starts the journal side of every hop proxy.
const hopPrefix = "hop:"

// HopSide is the journal side of the hop into tier.
func HopSide(tier string) string { return hopPrefix + tier }

// HopTier returns the tier a hop's journal side leads to, and whether side
// is a hop's at all.
func HopTier(side string) (string, bool) { return strings.CutPrefix(side, hopPrefix) }

// Side is the hop's journal side.
func (hp Hop) Side() string { return HopSide(hp.To) }

// Name renders the hop for reports: "gateway → service".
func (hp Hop) Name() string { return hp.From + " → " + hp.To }

// busy reports whether any proxy of h has an exchange in flight.
func (h *Harness) busy() bool {
	if h.Front != nil && h.Front.InFlight() > 0 || h.Dependency != nil && h.Dependency.InFlight() > 0 {
		return true
	}
	for _, hp := range h.Hops {
		if hp.Proxy.InFlight() > 0 {
			return true
		}
	}
	return false
}
