package check

import (
	"errors"
	"net/http"

	"github.com/resilcheck/resilcheck/load"
)

// LoadBuild is a load.Spec's Build for the operation: each request the load
// sends is the operation prepared with the key and tenant the load drew and
// an amount from its sequence, with the operation's headers and the key and
// tenant in the target's conventions.
func (h *Harness) LoadBuild() func(load.BodyData, http.Header) ([]byte, error) {
	return func(d load.BodyData, hd http.Header) ([]byte, error) {
		r, err := h.Operation.Prepare(Values{Key: d.Key, Tenant: d.Tenant, Amount: 1000 + d.Seq%8000, Seq: d.Seq}, false)
		if err != nil {
			return nil, err
		}
		for k, vs := range r.Header {
			hd[k] = vs
		}
		h.Conventions.SetTenant(hd, d.Tenant)
		hd.Set(h.Conventions.KeyHeaderName(), h.Conventions.FormatKey(d.Key))
		return r.Body, nil
	}
}

// Undriven is the inconclusive verdict of a check that could not drive
// its load: err says why. A load the harness sent slower than asked
// (load.ShortfallError) is the runner's slowness, not the target's, so
// the check runs again (NoisyRunner).
func Undriven(err error) Result {
	if sf, ok := errors.AsType[*load.ShortfallError](err); ok {
		return NoisyRunner("the harness could not keep the request rate: %v", sf)
	}
	return Inconclusive("%v", err)
}
