package report

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"strings"
)

// csvFloat formats a number for CSV: the shortest representation that
// reads back to the same float64, and an empty cell for NaN (undefined).
func csvFloat(f float64) string {
	if math.IsNaN(f) {
		return ""
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// WriteSummaryCSV writes one CSV row per summary row: the axis values (one
// column per axis path; for results summarised as a set, a "result" column
// with the row's name instead), the variant, the number of runs, then for every
// metric m the columns m (the mean), m_std, m_min, m_max, m_cv, m_ci_low
// and m_ci_high, and last the result files separated by ";". Undefined
// values (the std of one run, say) are empty cells.
func WriteSummaryCSV(w io.Writer, s *ExperimentSummary) error {
	cw := csv.NewWriter(w)
	named := false // rows named without axes: results summarised as a set
	for _, r := range s.Rows {
		named = named || (len(s.Axes) == 0 && r.Point != "")
	}
	head := append([]string{}, s.Axes...)
	if named {
		head = append(head, "result")
	}
	head = append(head, "variant", "runs")
	for _, m := range s.Metrics {
		head = append(head, m, m+"_std", m+"_min", m+"_max", m+"_cv", m+"_ci_low", m+"_ci_high")
	}
	head = append(head, "files")
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range s.Rows {
		rec := append([]string{}, r.Values...)
		if named {
			rec = append(rec, r.Point)
		}
		rec = append(rec, r.Variant, strconv.Itoa(len(r.Files)))
		for _, m := range s.Metrics {
			st, ok := r.Stats[m]
			if !ok {
				rec = append(rec, "", "", "", "", "", "", "")
				continue
			}
			rec = append(rec, csvFloat(st.Mean), csvFloat(st.Std), csvFloat(st.Min), csvFloat(st.Max),
				csvFloat(st.CV), csvFloat(st.CILow), csvFloat(st.CIHigh))
		}
		rec = append(rec, strings.Join(r.Files, ";"))
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteComparisonCSV writes one CSV row per comparison: point, variant,
// baseline, metric, the two means, the relative change, its interval,
// the method and the verdict.
func WriteComparisonCSV(w io.Writer, s *ExperimentSummary) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"point", "variant", "baseline", "metric", "baseline_value", "value", "change",
		"ci_low", "ci_high", "method", "verdict"}); err != nil {
		return err
	}
	for _, c := range s.Comparisons {
		if err := cw.Write([]string{c.Point, c.Variant, c.Baseline, c.Metric, csvFloat(c.Base), csvFloat(c.Value),
			csvFloat(c.Change), csvFloat(c.Low), csvFloat(c.High), c.Method, c.Verdict}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
