package report

import (
	"encoding/json"
	"io"
	"math"
)

// jsonNum is a float64 that encodes NaN and infinities as null.
type jsonNum float64

// MarshalJSON writes the number, or null when it is not finite.
func (n jsonNum) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

func jsonNums(x []float64) []jsonNum {
	out := make([]jsonNum, len(x))
	for i, v := range x {
		out[i] = jsonNum(v)
	}
	return out
}

type jsonMetric struct {
	Name   string    `json:"name"`
	N      int       `json:"n"`
	Mean   jsonNum   `json:"mean"`
	Std    jsonNum   `json:"std"`
	Min    jsonNum   `json:"min"`
	Max    jsonNum   `json:"max"`
	CV     jsonNum   `json:"cv"`
	CILow  jsonNum   `json:"ci_low"`
	CIHigh jsonNum   `json:"ci_high"`
	Values []jsonNum `json:"values"`
}

type jsonAxisValue struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

type jsonRow struct {
	Point   string          `json:"point,omitempty"`
	Values  []jsonAxisValue `json:"point_values,omitempty"`
	Variant string          `json:"variant,omitempty"`
	Runs    int             `json:"runs"`
	Missing int             `json:"missing,omitempty"`
	Files   []string        `json:"files"`
	Metrics []jsonMetric    `json:"metrics"`
}

type jsonComparison struct {
	Point    string  `json:"point,omitempty"`
	Variant  string  `json:"variant"`
	Baseline string  `json:"baseline"`
	Metric   string  `json:"metric"`
	Base     jsonNum `json:"baseline_value"`
	Value    jsonNum `json:"value"`
	Change   jsonNum `json:"change"`
	Low      jsonNum `json:"ci_low"`
	High     jsonNum `json:"ci_high"`
	Method   string  `json:"method,omitempty"`
	Verdict  string  `json:"verdict"`
}

type jsonGate struct {
	Metric   string  `json:"metric"`
	Kind     string  `json:"kind"`
	Limit    string  `json:"limit"`
	Point    string  `json:"point,omitempty"`
	Variant  string  `json:"variant"`
	Baseline string  `json:"baseline"`
	Change   jsonNum `json:"change"`
	Low      jsonNum `json:"ci_low"`
	High     jsonNum `json:"ci_high"`
	Excess   jsonNum `json:"excess"`
	Failed   bool    `json:"failed"`
	Reason   string  `json:"reason,omitempty"`
}

type jsonSummary struct {
	Name        string           `json:"name,omitempty"`
	Hash        string           `json:"experiment_hash,omitempty"`
	Axes        []string         `json:"axes,omitempty"`
	Baseline    string           `json:"baseline,omitempty"`
	Level       float64          `json:"level"`
	Metrics     []string         `json:"metrics"`
	Rows        []jsonRow        `json:"rows"`
	Bootstrap   string           `json:"bootstrap,omitempty"`
	Comparisons []jsonComparison `json:"comparisons,omitempty"`
	Gates       []jsonGate       `json:"gates,omitempty"`
}

// WriteSummaryJSON writes the summary as indented JSON: the experiment's
// name, hash, axes, baseline, confidence level and metric keys; per row its
// point (name and axis values), variant, run count, files and, per metric
// in order, n, mean, std, min, max, cv, ci_low, ci_high and each run's
// value; then the comparisons and the gates. Undefined numbers are null.
func WriteSummaryJSON(w io.Writer, s *ExperimentSummary) error {
	out := jsonSummary{Name: s.Name, Hash: s.Hash, Axes: s.Axes, Baseline: s.Baseline, Level: s.Level,
		Metrics: s.Metrics, Rows: []jsonRow{}, Bootstrap: s.Bootstrap}
	for _, r := range s.Rows {
		jr := jsonRow{Point: r.Point, Variant: r.Variant, Runs: len(r.Files), Missing: r.Missing, Files: r.Files,
			Metrics: []jsonMetric{}}
		if jr.Files == nil {
			jr.Files = []string{}
		}
		for i, v := range r.Values {
			if i < len(s.Axes) {
				jr.Values = append(jr.Values, jsonAxisValue{Path: s.Axes[i], Value: v})
			}
		}
		for _, m := range s.Metrics {
			st, ok := r.Stats[m]
			if !ok {
				continue
			}
			jr.Metrics = append(jr.Metrics, jsonMetric{Name: m, N: st.N, Mean: jsonNum(st.Mean), Std: jsonNum(st.Std),
				Min: jsonNum(st.Min), Max: jsonNum(st.Max), CV: jsonNum(st.CV), CILow: jsonNum(st.CILow),
				CIHigh: jsonNum(st.CIHigh), Values: jsonNums(r.PerRun[m])})
		}
		out.Rows = append(out.Rows, jr)
	}
	for _, c := range s.Comparisons {
		out.Comparisons = append(out.Comparisons, jsonComparison{Point: c.Point, Variant: c.Variant, Baseline: c.Baseline,
			Metric: c.Metric, Base: jsonNum(c.Base), Value: jsonNum(c.Value), Change: jsonNum(c.Change),
			Low: jsonNum(c.Low), High: jsonNum(c.High), Method: c.Method, Verdict: c.Verdict})
	}
	for _, g := range s.Gates {
		out.Gates = append(out.Gates, jsonGate{Metric: g.Metric, Kind: g.Kind, Limit: g.Limit, Point: g.Point,
			Variant: g.Variant, Baseline: g.Baseline, Change: jsonNum(g.Change), Low: jsonNum(g.Low),
			High: jsonNum(g.High), Excess: jsonNum(g.Excess), Failed: g.Failed, Reason: g.Reason})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
