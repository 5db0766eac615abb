package pipeline

import (
	"testing"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/report"
)

func TestPrefixCacheReport(t *testing.T) {
	tests := []struct {
		name     string
		st       *promscrape.PrefixCacheStats
		line     string
		jsonText string
	}{
		{"none", nil, "", ""},
		{"rate", &promscrape.PrefixCacheStats{QueriedTokens: 3, HitTokens: 2, HitRate: 200.0 / 3},
			"Prefix cache: 66.67 % hit rate (2 of 3 prompt tokens found cached, from the server's /metrics)\n",
			`{"hit_rate": 66.66666666666667, "queried_tokens": 3, "hit_tokens": 2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := prefixCacheLine(tt.st); got != tt.line {
				t.Errorf("line %q, want %q", got, tt.line)
			}
			v := prefixCacheJSON(tt.st)
			if tt.jsonText == "" {
				if v != nil {
					t.Errorf("JSON %v, want none", v)
				}
				return
			}
			b, err := report.MarshalPython(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.jsonText {
				t.Errorf("JSON %s, want %s", b, tt.jsonText)
			}
		})
	}
	// The metric's path is where the value is written.
	d := metrics.MustLookup(metrics.KeyPrefixCacheHitRate)
	if len(d.Path) != 3 || d.Path[0] != "vbench" || d.Path[1] != "prefix_cache" || d.Path[2] != "hit_rate" || d.Source != metrics.SourceServer {
		t.Errorf("def %+v", d)
	}
}
