package stats_test

import (
	"math/rand/v2"
	"testing"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/stats"
)

// The bootstrap's statistics are the ones vLLM's summary reports, so that
// a comparison's estimate equals the difference of the reported values:
// they must agree with the metrics package's numpy-exact versions.
func TestStatisticMatchesMetrics(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 7, 8, 130, 1001} {
		x := make([]float64, n)
		for i := range x {
			x[i] = 0.02 + 0.005*r.ExpFloat64()
		}
		tests := []struct {
			st   stats.Statistic
			want float64
		}{
			{stats.Statistic{Kind: stats.StatMedian}, metrics.Median(x)},
			{stats.Statistic{Kind: stats.StatPercentile, P: 99}, metrics.Percentile(x, 99)},
			{stats.Statistic{Kind: stats.StatPercentile, P: 99.9}, metrics.Percentile(x, 99.9)},
			{stats.Statistic{Kind: stats.StatPercentile, P: 50}, metrics.Percentile(x, 50)},
			{stats.Statistic{Kind: stats.StatPercentile, P: 1}, metrics.Percentile(x, 1)},
		}
		for _, tt := range tests {
			if got := tt.st.Of(x); got != tt.want {
				t.Errorf("n=%d %s = %.17g, numpy %.17g", n, tt.st, got, tt.want)
			}
		}
		// Sums are taken in another order than numpy's pairwise sum.
		if got, want := (stats.Statistic{Kind: stats.StatMean}).Of(x), metrics.Mean(x); got-want > 1e-15 || want-got > 1e-15 {
			t.Errorf("n=%d mean %v, numpy %v", n, got, want)
		}
		if got, want := (stats.Statistic{Kind: stats.StatStd}).Of(x), metrics.Std(x); got-want > 1e-15 || want-got > 1e-15 {
			t.Errorf("n=%d std %v, numpy %v", n, got, want)
		}
	}
}
