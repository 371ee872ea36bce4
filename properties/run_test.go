package properties

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestRun_pass(t *testing.T) {
	res := Run("sum", Config{Seed: 7, Checks: 30}, func(t *rapid.T) {
		a := rapid.IntRange(0, 100).Draw(t, "a")
		if a+1 <= a {
			t.Fatalf("overflow")
		}
	})
	if res.Failed || res.Seed != 7 {
		t.Fatalf("Run = %+v; want a pass with seed 7", res)
	}
}

func TestRun_shrinksAndReplays(t *testing.T) {
	prop := func(t *rapid.T) {
		n := rapid.IntRange(0, 1000).Draw(t, "n")
		if n >= 10 {
			t.Fatalf("n is too large")
		}
	}
	first := Run("bound", Config{Seed: 42, Checks: 50}, prop)
	if !first.Failed || !strings.Contains(first.Message, "n is too large") {
		t.Fatalf("Run = %+v; want a failure naming the violation", first)
	}
	if !slices.ContainsFunc(first.Counterexample, func(l string) bool { return strings.Contains(l, "draw n: 10") }) {
		t.Errorf("counterexample %q not shrunk to n = 10", first.Counterexample)
	}
	again := Run("bound", Config{Seed: 42, Checks: 50}, prop)
	if !slices.Equal(again.Counterexample, first.Counterexample) {
		t.Errorf("same seed gave %q then %q", first.Counterexample, again.Counterexample)
	}
}

func TestRun_stateMachine(t *testing.T) {
	res := Run("machine", Config{Seed: 3, Checks: 10, Steps: 20}, func(t *rapid.T) {
		var stack []int
		t.Repeat(map[string]func(*rapid.T){
			"push": func(t *rapid.T) { stack = append(stack, rapid.Int().Draw(t, "v")) },
			"pop": func(t *rapid.T) {
				if len(stack) == 0 {
					t.Skip("empty")
				}
				stack = stack[:len(stack)-1]
			},
			"": func(t *rapid.T) {
				if len(stack) > 3 {
					t.Fatalf("stack deeper than 3")
				}
			},
		})
	})
	if !res.Failed || len(res.Counterexample) == 0 {
		t.Fatalf("Run = %+v; want a shrunk failing action sequence", res)
	}
}
