package outbox

import (
	"regexp"
	"slices"
	"testing"

	"github.com/resilcheck/resilcheck/broker"
	"github.com/resilcheck/resilcheck/check"
)

// journal is a broker journal as a test writes it; only Events is used.
type journal struct {
	check.EventBroker
	evs []broker.Event
}

func (j journal) Events() []broker.Event { return j.evs }

func emit(id, body string) broker.Event {
	return broker.Event{Kind: broker.Emitted, MsgID: id, Body: []byte(body)}
}

func TestOcase_emitted(t *testing.T) {
	for _, tc := range []struct {
		name string
		evs  []broker.Event
		want []string
	}{
		{"by key, another case's event with the same amount left out", []broker.Event{
			emit("a", `{"key":"k-1","amount":1234}`), emit("b", `{"key":"k-9","amount":1234}`), emit("a", `{"key":"k-1","amount":1234}`)}, []string{"a"}},
		{"by amount when no event names the key", []broker.Event{
			emit("a", `{"amount":1234}`), emit("b", `{"amount":12345}`)}, []string{"a"}},
		{"before the case is not the case's", []broker.Event{emit("old", `{"key":"k-1"}`)}, nil},
	} {
		o := &ocase{call: check.Call{Key: "k-1", Amount: 1234}, amount: regexp.MustCompile(`(^|[^0-9.])1234([^0-9.]|$)`)}
		evs := tc.evs
		if tc.name == "before the case is not the case's" {
			o.start = 1
		}
		o.p.Broker = journal{evs: evs}
		if got := ids(o.emitted()); !slices.Equal(got, tc.want) {
			t.Errorf("%s: emitted ids %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestIDs(t *testing.T) {
	got := ids([]broker.Event{emit("a", ""), emit("", ""), emit("a", ""), emit("b", "")})
	if want := []string{"a", "(no id #2)", "b"}; !slices.Equal(got, want) {
		t.Errorf("ids = %v, want %v", got, want)
	}
}
