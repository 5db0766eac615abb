package stats_test

import (
	"math/rand/v2"
	"testing"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/stats"
)

// The bootstrap's statistics are the ones vLLM's summary reports, so that
// a comparison's estimate equals the difference of the reported values:
// they must agree, bit for bit, with the numpy package.
func TestStatisticMatchesNumPy(t *testing.T) {
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
			{stats.Statistic{Kind: stats.StatMean}, numpy.Mean(x)},
			{stats.Statistic{Kind: stats.StatStd}, numpy.Std(x, 0)},
			{stats.Statistic{Kind: stats.StatMedian}, numpy.Median(x)},
			{stats.Statistic{Kind: stats.StatPercentile, P: 99}, numpy.Percentile(x, 99)},
			{stats.Statistic{Kind: stats.StatPercentile, P: 99.9}, numpy.Percentile(x, 99.9)},
			{stats.Statistic{Kind: stats.StatPercentile, P: 50}, numpy.Percentile(x, 50)},
			{stats.Statistic{Kind: stats.StatPercentile, P: 1}, numpy.Percentile(x, 1)},
		}
		for _, tt := range tests {
			if got := tt.st.Of(x); got != tt.want {
				t.Errorf("n=%d %s = %.17g, numpy %.17g", n, tt.st, got, tt.want)
			}
		}
	}
}
