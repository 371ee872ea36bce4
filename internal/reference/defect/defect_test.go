package defect

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	s, err := Parse("racy-idempotency", "no-jitter, bad-retry-after", "")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got, want := s.Names(), []string{"bad-retry-after", "no-jitter", "racy-idempotency"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v; want %v", got, want)
	}
	_, err = Parse("no-jitter", "typo-defect")
	var ue *UnknownError
	if !errors.As(err, &ue) || !slices.Equal(ue.Names, []string{"typo-defect"}) {
		t.Fatalf("Parse(typo) error = %v; want *UnknownError{typo-defect}", err)
	}
	if !strings.Contains(err.Error(), "lying-ratelimit-remaining") {
		t.Errorf("error %q does not list the valid defects", err)
	}
}

func TestSet_Has(t *testing.T) {
	t.Parallel()
	var none Set
	if none.Has(NoJitter) {
		t.Error("nil Set has a defect")
	}
	if !(Set{NoJitter: true}).Has(NoJitter) {
		t.Error("Set{NoJitter}.Has(NoJitter) = false")
	}
}

func TestAll_Unique(t *testing.T) {
	t.Parallel()
	seen := map[Name]bool{}
	for _, in := range All() {
		if seen[in.Name] || in.Component == "" || in.Contract == "" || in.Breaks == "" {
			t.Errorf("catalog entry %+v duplicated or incomplete", in)
		}
		seen[in.Name] = true
	}
	if len(seen) != 55 {
		t.Errorf("catalog has %d defects; the matrix lists 55", len(seen))
	}
}

// TestParse_clientDefect: an SDK defect is no defect of the stack, and the
// error says where it belongs; ParseClient takes it.
func TestParse_clientDefect(t *testing.T) {
	t.Parallel()
	_, err := Parse(string(ClientNoJitter))
	var ue *UnknownError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "reference SDK") {
		t.Errorf("Parse(%s) = %v; want an *UnknownError pointing at the SDK", ClientNoJitter, err)
	}
	set, err := ParseClient(string(ClientNoJitter) + "," + string(Client429Final))
	if err != nil || !set.Has(ClientNoJitter) || !set.Has(Client429Final) {
		t.Errorf("ParseClient = %v, %v", set, err)
	}
	if _, err := ParseClient(string(NoJitter)); !errors.As(err, &ue) || strings.Contains(err.Error(), "reference SDK") {
		t.Errorf("ParseClient(%s) = %v; want unknown, the SDK has no such defect", NoJitter, err)
	}
	if n := len(Client()); n != 14 {
		t.Errorf("the SDK has %d defects; the client matrix lists 14", n)
	}
}
