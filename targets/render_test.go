package targets

import (
	"slices"
	"testing"
)

func TestOperation_Render(t *testing.T) {
	t.Parallel()
	tg, err := Load("testdata/good/process.yaml")
	if err != nil {
		t.Fatal(err)
	}
	op := tg.Operations[0]
	v := RequestValues{Key: "k1", Amount: 250, Tenant: "t", Seq: 3}
	req, err := op.Render(v, false)
	if err != nil {
		t.Fatal(err)
	}
	alt, err := op.Render(v, true)
	if err != nil {
		t.Fatal(err)
	}
	if string(req.Body) != `{"amount": 250, "currency": "EUR"}` || string(alt.Body) != `{"amount": 251, "currency": "EUR"}` ||
		req.Method != "POST" || req.Path != "/v1/payments" || req.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Render = %+v / %s", req, alt.Body)
	}
	u, _, err := tg.Effects.Probe.RenderURL("http://127.0.0.1:1/", v)
	if err != nil || u != "http://127.0.0.1:1/v1/payments?key=k1" {
		t.Errorf("RenderURL = %q, %v", u, err)
	}
	argv, env, err := tg.Process.Render(ProcessValues{Port: 7, TempDir: "/tmp/x", Dependencies: map[string]string{"processor": "http://p"}})
	if err != nil || !slices.Equal(argv, []string{"./bin/payments", "--listen", "127.0.0.1:7", "--processor-url", "http://p"}) ||
		env["STORE"] != "sqlite:/tmp/x/payments.db" {
		t.Errorf("Process.Render = %q, %v, %v", argv, env, err)
	}
}

func TestOperation_Succeeded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		success []int
		status  int
		want    bool
	}{
		{nil, 200, true}, {nil, 204, true}, {nil, 409, false}, {[]int{201}, 200, false}, {[]int{200, 201}, 201, true},
	}
	for _, c := range cases {
		if got := (Operation{Success: c.success}).Succeeded(c.status); got != c.want {
			t.Errorf("Operation{Success: %v}.Succeeded(%d) = %t; want %t", c.success, c.status, got, c.want)
		}
	}
}
