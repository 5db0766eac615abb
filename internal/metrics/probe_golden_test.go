package metrics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// The probe statistics are vLLM's, bit for bit: numpy's median and 99th
// percentile of the successful probes' latencies, and their maximum, from
// testdata/probe_golden.json (gen_probe.py, Debian's NumPy).
func TestComputeProbeGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "probe_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name      string   `json:"name"`
		Latencies []*int64 `json:"latencies_ns"`
		Completed int      `json:"probe_completed"`
		Failed    int      `json:"probe_failed"`
		Median    float64  `json:"probe_median_e2el_ms"`
		P99       float64  `json:"probe_p99_e2el_ms"`
		Max       float64  `json:"probe_max_e2el_ms"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			recs := make([]*record.Record, len(c.Latencies))
			for i, ns := range c.Latencies {
				r := &record.Record{Index: i, Start: time.Duration(i) * time.Second}
				if ns != nil {
					r.Success, r.End = true, r.Start+time.Duration(*ns)
				} else {
					r.Error = "probe failed"
				}
				recs[i] = r
			}
			got := ComputeProbe(recs)
			want := ProbeSummary{Completed: c.Completed, Failed: c.Failed, MedianE2ELMs: c.Median, P99E2ELMs: c.P99, MaxE2ELMs: c.Max}
			if got == nil || *got != want {
				t.Errorf("ComputeProbe = %+v, want %+v", got, want)
			}
		})
	}
}
