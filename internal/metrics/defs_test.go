package metrics

import (
	"slices"
	"strings"
	"testing"
)

func TestPercentileWord(t *testing.T) {
	tests := []struct {
		p    float64
		want string
	}{
		{99, "99"}, {50, "50"}, {100, "100"}, {0, "0"}, {99.9, "99.9"}, {99.99, "99.99"}, {0.5, "0.5"},
		{12.25, "12.25"}, {0.0001, "0.0001"}, {0.00001, "1e-05"}, {1.5e-07, "1.5e-07"}, {1e16 + 2, "10000000000000002"},
	}
	for _, tt := range tests {
		if got := PercentileWord(tt.p); got != tt.want {
			t.Errorf("PercentileWord(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
	if got := PercentileKey(99.9, E2EL); got != "p99.9_e2el_ms" {
		t.Errorf("PercentileKey = %q", got)
	}
}

func TestTableIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Defs() {
		if seen[d.Key] {
			t.Errorf("%s: defined twice", d.Key)
		}
		seen[d.Key] = true
		if d.Source == 0 || d.Source&(d.Source-1) != 0 {
			t.Errorf("%s: source %v is not one source", d.Key, d.Source)
		}
		if len(d.Path) == 0 || (len(d.Path) == 1 && d.Path[0] != d.Key) {
			t.Errorf("%s: path %q", d.Key, d.Path)
		}
		if (d.Source == SourceHealth || d.Needs&NeedsSteadyState != 0) && len(d.Path) == 1 {
			t.Errorf("%s: a health or steady-state metric lives in the vbench object: path %q", d.Key, d.Path)
		}
		if len(d.Path) > 1 && d.Path[0] != "vbench" {
			t.Errorf("%s: a nested metric lives in the vbench object, never under a new top-level key: path %q", d.Key, d.Path)
		}
		if d.Title != "" && !strings.HasSuffix(d.Title, ":") {
			t.Errorf("%s: console title %q has no colon", d.Key, d.Title)
		}
		if _, _, ok := SplitStatKey(d.Key); ok {
			t.Errorf("%s: looks like a latency statistic", d.Key)
		}
	}
	names := make([]string, len(Latencies()))
	for i, l := range Latencies() {
		names[i] = l.Name
	}
	if !slices.Equal(names, MetricOrder) {
		t.Errorf("latencies %q, want MetricOrder %q", names, MetricOrder)
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		key, title, short string
		better            Better
		headline, compare bool
		source            Source
	}{
		{"mean_ttft_ms", "Mean TTFT (ms):", "mean TTFT (ms)", BetterLower, true, true, SourceClient},
		{"median_client_queue_time_ms", "Median Client Queue Time (ms):", "median queue (ms)", BetterLower, true, true, SourceClient},
		{"p99.9_e2el_including_client_queue_ms", "P99.9 E2EL incl. Client Queue (ms):", "P99.9 E2EL+queue (ms)", BetterLower, true, true, SourceClient},
		{"std_itl_ms", "", "std ITL (ms)", BetterNone, true, false, SourceClient},
		{"p50_foo_ms", "P50 foo (ms):", "P50 foo (ms)", BetterLower, true, true, SourceClient},
		{"output_throughput", "Output token throughput (tok/s):", "output tok/s", BetterHigher, true, true, SourceClient},
		{"failed", "Failed requests:", "", BetterLower, true, false, SourceClient},
		{"total_input_tokens", "Total input tokens:", "", BetterNone, false, false, SourceClient},
		{"spec_decode_acceptance_rate", "Acceptance rate (%):", "", BetterNone, true, false, SourceServer},
		{"client_send_lag_p99_ms", "", "send lag P99 (ms)", BetterLower, false, false, SourceHealth},
	}
	for _, tt := range tests {
		d, ok := Lookup(tt.key)
		if !ok {
			t.Errorf("Lookup(%q): not found", tt.key)
			continue
		}
		if d.Title != tt.title || d.Short != tt.short || d.Better != tt.better || d.Headline != tt.headline ||
			d.Compared != tt.compare || d.Source != tt.source {
			t.Errorf("Lookup(%q) = %+v", tt.key, d)
		}
	}
	for _, k := range []string{"", "num_prompts", "p99_ttft", "ttfts", "probe_p99_e2el"} {
		if _, ok := Lookup(k); ok {
			t.Errorf("Lookup(%q) found a metric", k)
		}
	}
}

func TestSetupProduces(t *testing.T) {
	base := Setup{Sources: SourceClient | SourceHealth, Generation: true, Tokenizer: true,
		PercentileMetrics: []string{TTFT, TPOT, ITL}, Percentiles: []float64{99}}
	with := func(f func(*Setup)) Setup {
		s := base
		s.PercentileMetrics = slices.Clone(base.PercentileMetrics)
		f(&s)
		return s
	}
	tests := []struct {
		name  string
		setup Setup
		key   string
		want  bool
	}{
		{"throughput", base, "output_throughput", true},
		{"selected mean", base, "mean_ttft_ms", true},
		{"selected std", base, "std_itl_ms", true},
		{"reported percentile", base, "p99_tpot_ms", true},
		{"other percentile", base, "p90_tpot_ms", false},
		{"unselected metric", base, "mean_e2el_ms", false},
		{"typo", base, "p99_ttfx_ms", false},
		{"list", base, "spec_decode_per_position_acceptance_rates", false},
		{"no server source", base, "spec_decode_acceptance_rate", false},
		{"server source", with(func(s *Setup) { s.Sources |= SourceServer }), "spec_decode_acceptance_rate", true},
		{"health", base, "client_send_lag_p99_ms", true},
		{"no health", with(func(s *Setup) { s.Sources = SourceClient }), "client_send_lag_p99_ms", false},
		{"goodput unset", base, "request_goodput", false},
		{"goodput set", with(func(s *Setup) { s.Goodput = true }), "request_goodput", true},
		{"no tokenizer", with(func(s *Setup) { s.Tokenizer = false }), "mean_ttft_ms", false},
		{"no probes", base, "probe_p99_e2el_ms", false},
		{"queue without limit", with(func(s *Setup) { s.PercentileMetrics = append(s.PercentileMetrics, ClientQueueTime) }), "mean_client_queue_time_ms", false},
		{"queue with limit", with(func(s *Setup) {
			s.PercentileMetrics = append(s.PercentileMetrics, ClientQueueTime)
			s.MaxConcurrency = true
		}), "mean_client_queue_time_ms", true},
		{"pooling has no output", with(func(s *Setup) { s.Generation = false }), "output_throughput", false},
		{"pooling input rate", with(func(s *Setup) { s.Generation = false }), "input_sequence_throughput", true},
		{"generation input rate", base, "input_sequence_throughput", false},
		{"token accounting", base, "token_disagreeing_share", true},
		{"token accounting without a tokenizer", with(func(s *Setup) { s.Tokenizer = false }), "token_disagreeing_share", false},
	}
	for _, tt := range tests {
		if got := tt.setup.Produces(tt.key); got != tt.want {
			t.Errorf("%s: Produces(%q) = %v, want %v", tt.name, tt.key, got, tt.want)
		}
	}
	want := "duration completed failed total_input_tokens total_output_tokens request_throughput output_throughput " +
		"total_token_throughput max_output_tokens_per_s max_concurrent_requests rtfx peak_overlapping_requests " +
		"token_disagreeing_share token_mean_abs_diff token_no_server_usage " +
		"client_send_lag_p50_ms client_send_lag_p99_ms client_send_lag_max_ms client_cpu_fraction client_gc_pause_ms " +
		"mean_ttft_ms median_ttft_ms std_ttft_ms p99_ttft_ms mean_tpot_ms median_tpot_ms std_tpot_ms p99_tpot_ms " +
		"mean_itl_ms median_itl_ms std_itl_ms p99_itl_ms"
	if got := strings.Join(base.Keys(), " "); got != want {
		t.Errorf("Keys() =\n%s\nwant\n%s", got, want)
	}
	for _, k := range base.Keys() {
		if !base.Produces(k) {
			t.Errorf("Keys() lists %s, which Produces refuses", k)
		}
	}
}

// TestSetupMatchesCompute keeps the table's latency rules and Compute's in
// step: for every combination of the settings, the latency metrics Setup
// says a run computes are those ComputeOutcomes reports.
func TestSetupMatchesCompute(t *testing.T) {
	outs := []Outcome{ok(0, 0.1, 3, 0.01, 0.01), ok(0.5, 0.2, 2, 0.02)}
	for mask := range 8 {
		tok, conc, finite := mask&1 != 0, mask&2 != 0, mask&4 != 0
		opt := Options{PercentileMetrics: MetricOrder, Percentiles: []float64{50, 99.9}, MaxConcurrencySet: conc, RequestRateFinite: finite}
		if tok {
			opt.CountTokens = func(s string) int { return len(s) }
		}
		s := ComputeOutcomes(outs, 1, opt)
		setup := Setup{Sources: SourceClient, Generation: true, Tokenizer: tok, MaxConcurrency: conc, FiniteRate: finite,
			PercentileMetrics: MetricOrder, Percentiles: opt.Percentiles}
		var got, want []string
		for _, m := range s.Metrics {
			want = append(want, m.Name)
		}
		for _, name := range MetricOrder {
			if setup.HasLatency(name) {
				got = append(got, name)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("tokenizer %v, limit %v, finite rate %v: Setup computes %q, Compute %q", tok, conc, finite, got, want)
		}
	}
}

func TestSuggest(t *testing.T) {
	keys := Setup{Generation: true, Tokenizer: true, PercentileMetrics: []string{TTFT, TPOT}, Percentiles: []float64{99}}.Keys()
	tests := []struct{ key, want string }{
		{"p99_ttfx_ms", "p99_ttft_ms"},
		{"output_throughput", "output_throughput"},
		{"outputthroughput", "output_throughput"},
		{"p99_e2el_ms", ""},
		{"spec_decode_acceptance_rate", ""},
		{"x", ""},
	}
	for _, tt := range tests {
		if got := Suggest(tt.key, keys); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}
