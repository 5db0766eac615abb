package sim

import (
	"context"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestEventLatenessExposition checks the per-event lateness families that
// `vbench calibrate` takes before/after deltas of.
func TestEventLatenessExposition(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, 300*time.Microsecond
	s := startServer(t, cfg)
	const requests, tokens = 3, 6
	for range requests {
		readAll(t, post(t, context.Background(), s.URL()+"/v1/completions",
			`{"prompt":"a b","max_tokens":6,"ignore_eos":true,"stream":true}`, nil))
	}
	resp, err := http.Get(s.URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(readAll(t, resp)))
	if err != nil {
		t.Fatal(err)
	}
	byEvent := func(name string) map[string]*dto.Metric {
		t.Helper()
		f, ok := fams[name]
		if !ok {
			t.Fatalf("no family %s", name)
		}
		out := map[string]*dto.Metric{}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "event" {
					out[l.GetValue()] = m
				}
			}
		}
		return out
	}
	hist := byEvent("vbench_sim_event_lateness_seconds")
	sq := byEvent("vbench_sim_event_lateness_squared_seconds_total")
	tests := []struct {
		event string
		count uint64
	}{
		{"first", requests},
		{"next", requests * (tokens - 1)},
	}
	for _, tt := range tests {
		h := hist[tt.event].GetHistogram()
		if h.GetSampleCount() != tt.count {
			t.Errorf("%s: count %d, want %d", tt.event, h.GetSampleCount(), tt.count)
		}
		// Buckets are cumulative, increasing, and end at the count.
		prev, prevLE := uint64(0), -1.0
		for _, b := range h.GetBucket() {
			if b.GetCumulativeCount() < prev || b.GetUpperBound() <= prevLE {
				t.Errorf("%s: bucket le=%v count %d after le=%v count %d", tt.event, b.GetUpperBound(), b.GetCumulativeCount(), prevLE, prev)
			}
			prev, prevLE = b.GetCumulativeCount(), b.GetUpperBound()
		}
		if prev != tt.count {
			t.Errorf("%s: last bucket %d, want %d", tt.event, prev, tt.count)
		}
		// Cauchy–Schwarz: Σx² ≥ (Σx)²/n.
		n, sum, sumSq := float64(tt.count), h.GetSampleSum(), sq[tt.event].GetCounter().GetValue()
		// Lateness is never negative; it may be 0 on an idle machine.
		if sumSq < sum*sum/n*(1-1e-9) || sum < 0 {
			t.Errorf("%s: sum %v, sum of squares %v", tt.event, sum, sumSq)
		}
	}
	itl := fams["vllm:inter_token_latency_seconds"].GetMetric()[0].GetHistogram()
	itlSq := fams["vbench_sim_written_itl_squared_seconds_total"].GetMetric()[0].GetCounter().GetValue()
	n := float64(itl.GetSampleCount())
	mean := itl.GetSampleSum() / n
	// A late token shortens the next gap, and two tokens written at once
	// have a gap of 0, so nothing about the gaps' size depends on the
	// machine being idle: only their count, that none is negative, and that
	// the squares are consistent with the sum (a variance ≥ 0) are checked.
	if v := itlSq/n - mean*mean; n != requests*(tokens-1) || v < -1e-12*math.Max(mean*mean, 1e-12) || mean < 0 {
		t.Errorf("written ITL: %v gaps, mean %v s, variance %v s²", n, mean, v)
	}
}
