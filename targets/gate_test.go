package targets

import (
	"reflect"
	"testing"
)

func TestLoad_gate(t *testing.T) {
	t.Parallel()
	tg, err := Load("testdata/good/gate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Gate{FailOn: "should", Waivers: []Waiver{{Check: "RL-07",
		Reason: "legacy reset header until the migration (PAY-123)", Expires: "2026-12-31"}}}
	if !reflect.DeepEqual(tg.Gate, want) {
		t.Errorf("Load(gate.yaml).Gate = %+v; want %+v (an unquoted date stays YYYY-MM-DD)", tg.Gate, want)
	}
}
