package outbox

import (
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/resilcheck/resilcheck/broker"
	"github.com/resilcheck/resilcheck/check"
)

// journal is a broker journal as a test writes it, with the events
// stream's content; only Events and Stored are used.
type journal struct {
	check.EventBroker
	evs []broker.Event
	st  []broker.Event
}

func (j journal) Events() []broker.Event { return j.evs }

func (j journal) Stored(context.Context) ([]broker.Event, error) { return slices.Clone(j.st), nil }

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

// TestOcase_stored: an event stored without a Nats-Msg-Id is the case's
// when its body is that of one of the case's publishes without an id (as
// watermill-nats publishes with TrackMsgId off), so OB-01 to OB-03 blame
// the missing id at once instead of waiting the settle time out for an
// event they counted as never stored; another case's is left out.
func TestOcase_stored(t *testing.T) {
	mine, other := `{"key":"k-1","amount":1234}`, `{"key":"k-9","amount":1234}`
	for _, tc := range []struct {
		name    string
		evs, st []broker.Event
		want    []string
	}{
		{"by id", []broker.Event{emit("a", mine)}, []broker.Event{emit("b", other), emit("a", mine)}, []string{"a"}},
		{"without an id, by body", []broker.Event{emit("", mine), emit("", mine)},
			[]broker.Event{emit("", other), emit("", mine)}, []string{"(no id #1)"}},
		{"without an id, another case's body", []broker.Event{emit("", mine)}, []broker.Event{emit("", other)}, nil},
		{"without an id, never published by the case", []broker.Event{emit("a", mine)}, []broker.Event{emit("", mine)}, nil},
	} {
		o := &ocase{call: check.Call{Key: "k-1", Amount: 1234}, amount: regexp.MustCompile(`(^|[^0-9.])1234([^0-9.]|$)`)}
		o.p.Broker = journal{evs: tc.evs, st: tc.st}
		st, err := o.stored(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(st); !slices.Equal(got, tc.want) {
			t.Errorf("%s: stored ids %v, want %v", tc.name, got, tc.want)
		}
	}
}
