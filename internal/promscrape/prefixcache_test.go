package promscrape

import (
	"math"
	"testing"
)

// prefixExposition is vLLM's prefix-cache families as Python's
// prometheus_client writes them, for two engines, with _created series
// and the engines' labels in different orders; extra is appended.
func prefixExposition(q0, h0, q1, h1, extra string) string {
	return `# HELP vllm:prefix_cache_queries Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} ` + q0 + `
vllm:prefix_cache_queries_created{engine="0",model_name="m"} 1.7e+09
vllm:prefix_cache_queries_total{model_name="m",engine="1"} ` + q1 + `
vllm:prefix_cache_queries_created{model_name="m",engine="1"} 1.7e+09
# HELP vllm:prefix_cache_hits Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} ` + h0 + `
vllm:prefix_cache_hits_created{engine="0",model_name="m"} 1.7e+09
vllm:prefix_cache_hits_total{model_name="m",engine="1"} ` + h1 + `
vllm:prefix_cache_hits_created{model_name="m",engine="1"} 1.7e+09
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
` + extra
}

func TestPrefixCache(t *testing.T) {
	const external = `# TYPE vllm:external_prefix_cache_hits counter
vllm:external_prefix_cache_hits_total{engine="0",model_name="m"} 99999.0
`
	tests := []struct {
		name          string
		before, after string
		want          *PrefixCacheStats
	}{
		{"two engines summed, _created and other families ignored",
			prefixExposition("1000.0", "200.0", "500.0", "0.0", external),
			prefixExposition("1800.0", "800.0", "700.0", "100.0", external),
			&PrefixCacheStats{QueriedTokens: 1000, HitTokens: 700, HitRate: 70}},
		// Engine 1 restarted: its counters count from 0 again.
		{"reset", prefixExposition("1000.0", "200.0", "500.0", "100.0", ""),
			prefixExposition("1400.0", "400.0", "100.0", "50.0", ""),
			&PrefixCacheStats{QueriedTokens: 500, HitTokens: 250, HitRate: 50}},
		{"nothing queried", prefixExposition("10.0", "0.0", "0.0", "0.0", ""), prefixExposition("10.0", "0.0", "0.0", "0.0", ""), nil},
		{"no families before", "# TYPE x counter\nx_total 1.0\n", prefixExposition("10.0", "0.0", "0.0", "0.0", ""), nil},
		{"families gone after", prefixExposition("10.0", "0.0", "0.0", "0.0", ""), "# TYPE x counter\nx_total 1.0\n", nil},
		{"no metrics at all", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PrefixCache(mustParse(t, tt.before), mustParse(t, tt.after))
			switch {
			case (got == nil) != (tt.want == nil):
				t.Fatalf("PrefixCache = %+v, want %+v", got, tt.want)
			case got == nil:
			case got.QueriedTokens != tt.want.QueriedTokens || got.HitTokens != tt.want.HitTokens || math.Abs(got.HitRate-tt.want.HitRate) > 1e-9:
				t.Errorf("PrefixCache = %+v, want %+v", got, tt.want)
			}
		})
	}
	if PrefixCache(nil, nil) != nil {
		t.Error("PrefixCache of no scrapes is not nil")
	}
}
