package sim

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/promscrape"
)

func TestSpecAccepted(t *testing.T) {
	tests := []struct {
		k    int
		rate float64
		n    int
		want []int
	}{
		// 7 tokens after the first: 1+1, 2+1, then 1 accepted + the last.
		{3, 0.5, 8, []int{1, 2, 1}},
		{3, 0.5, 1, nil},
		{3, 0.5, 0, nil},
		{3, 0.5, 2, []int{0}},
		{3, 0, 4, []int{0, 0, 0}},
		{3, 1, 9, []int{3, 3}},
		{3, 1, 10, []int{3, 3, 0}},
		{2, 0.25, 9, []int{0, 1, 0, 1, 0, 0}}, // the last draft accepts only what is left
		// rate·k = 0.3·10 = 3 exactly despite 0.3's binary error.
		{10, 0.3, 9, []int{3, 3}},
	}
	for _, tt := range tests {
		got := SpecAccepted(tt.k, tt.rate, tt.n)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SpecAccepted(%d, %v, %d) = %v, want %v", tt.k, tt.rate, tt.n, got, tt.want)
		}
		emitted := 1
		for _, a := range got {
			emitted += a + 1
		}
		if tt.n > 0 && emitted != tt.n {
			t.Errorf("SpecAccepted(%d, %v, %d) yields %d tokens", tt.k, tt.rate, tt.n, emitted)
		}
	}
}

func TestSpecConfig(t *testing.T) {
	for _, cfg := range []func(*Config){
		func(c *Config) { c.SpecDecodeTokens = -1 },
		func(c *Config) { c.SpecDecodeTokens, c.SpecDecodeAcceptance = 3, 1.5 },
		func(c *Config) { c.SpecDecodeTokens, c.SpecDecodeAcceptance = 3, -0.1 },
	} {
		c := testConfig()
		cfg(&c)
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), "spec-decode") {
			t.Errorf("New(%+v) = %v", c, err)
		}
	}
}

// TestSpecMetrics serves requests and reads the counters back through
// the exposition: two engines, _created series, and totals equal to the
// model's.
func TestSpecMetrics(t *testing.T) {
	cfg := testConfig()
	cfg.ITL, cfg.TTFT = 0, 0
	cfg.SpecDecodeTokens, cfg.SpecDecodeAcceptance = 3, 0.5
	s := mustNew(t, cfg)
	for i := range 6 {
		body := fmt.Sprintf(`{"model":"sim-model","prompt":"p%d","max_tokens":8,"ignore_eos":true,"stream":%v}`, i, i%2 == 0)
		if rec := call(t, s, "POST", "/v1/completions", body); rec.status != 200 {
			t.Fatalf("status %d: %s", rec.status, rec.body.String())
		}
	}
	text := call(t, s, "GET", "/metrics", "").body.String()
	for _, want := range []string{
		"# TYPE vllm:spec_decode_num_drafts counter\n",
		`vllm:spec_decode_num_drafts_created{engine="1",model_name="sim-model"} `,
		`vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="sim-model",position="2"} `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	// Per request (8 tokens): drafts [1 2 1].
	want := SpecStats{Drafts: 18, DraftTokens: 54, Accepted: 24, PerPosition: []uint64{18, 6, 0}}
	if got := s.Stats().Spec; !reflect.DeepEqual(got, want) {
		t.Errorf("Stats().Spec = %+v, want %+v", got, want)
	}
	snap, err := promscrape.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if f := snap.Family(promscrape.FamSpecDrafts, promscrape.Counter); f == nil || len(f.Series) != 2 {
		t.Fatalf("drafts family %+v", f)
	}
	// From a server that had drafted nothing yet.
	st := promscrape.SpecDecode(&promscrape.Snapshot{Families: map[string]*promscrape.Family{
		promscrape.FamSpecDraftTokens: {Name: promscrape.FamSpecDraftTokens, Kind: promscrape.Counter, Series: map[string]*promscrape.Series{"": {}}},
	}}, snap)
	if st == nil || st.NumDrafts != 18 || st.DraftTokens != 54 || st.AcceptedTokens != 24 ||
		!reflect.DeepEqual(st.PerPosition, []float64{1, 6.0 / 18, 0}) {
		t.Errorf("SpecDecode from zero = %+v", st)
	}
}

func TestNoSpecMetricsByDefault(t *testing.T) {
	s := mustNew(t, testConfig())
	if text := call(t, s, "GET", "/metrics", "").body.String(); strings.Contains(text, "spec_decode") {
		t.Errorf("spec-decode counters without SpecDecodeTokens:\n%s", text)
	}
}
