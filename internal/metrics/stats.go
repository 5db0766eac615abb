package metrics

import (
	"slices"

	"github.com/vbench/vbench/internal/numpy"
)

// zero is vLLM's replacement for an empty list: its statistics are computed
// over `values or 0`, and numpy of the scalar 0 is 0 for every statistic.
var zero = []float64{0}

func orZero(x []float64) []float64 {
	if len(x) == 0 {
		return zero
	}
	return x
}

// Mean is vLLM's np.mean(x or 0): numpy.Mean, with 0 for an empty x.
func Mean(x []float64) float64 { return numpy.Mean(orZero(x)) }

// Std is vLLM's np.std(x or 0): numpy's population standard deviation
// (ddof 0), with 0 for an empty x.
func Std(x []float64) float64 { return numpy.Std(orZero(x), 0) }

// Median is vLLM's np.median(x or 0): numpy.Median, with 0 for an empty x.
func Median(x []float64) float64 { return numpy.Median(orZero(x)) }

// Percentile is vLLM's np.percentile(x or 0, p): numpy.Percentile (method
// "linear"), with 0 for an empty x.
func Percentile(x []float64, p float64) float64 { return numpy.Percentile(orZero(x), p) }

// sortedCopy is values (or 0) sorted ascending, for computing several
// order statistics from one sort.
func sortedCopy(x []float64) []float64 {
	s := slices.Clone(orZero(x))
	slices.Sort(s)
	return s
}
