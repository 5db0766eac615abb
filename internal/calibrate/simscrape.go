package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Metric families of `vbench sim` that calibration reads.
const (
	famLateness = "vbench_sim_event_lateness_seconds"
	famLateSq   = "vbench_sim_event_lateness_squared_seconds_total"
	famITL      = "vllm:inter_token_latency_seconds"
	famITLSq    = "vbench_sim_written_itl_squared_seconds_total"
)

// errNotSim reports a target whose /metrics lacks the simulator's lateness.
var errNotSim = errors.New("the target's /metrics has no " + famLateness + " (is it a vbench sim?)")

// latenessHist is a cumulative lateness histogram as scraped: sparse
// buckets on the simulator's fixed log-linear grid.
type latenessHist struct {
	count   uint64
	sum     float64 // seconds
	sumSq   float64 // seconds²
	buckets []bucket
}

// bucket is one cumulative bucket.
type bucket struct {
	le  float64 // upper bound, seconds
	cum uint64
}

// simSnapshot is one scrape of the simulator's counters.
type simSnapshot struct {
	first, next latenessHist
	itlCount    uint64
	itlSum      float64 // seconds
	itlSumSq    float64 // seconds²
}

// scrapeSim reads base+"/metrics".
func scrapeSim(ctx context.Context, hc *http.Client, base string) (simSnapshot, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return simSnapshot{}, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return simSnapshot{}, fmt.Errorf("scraping the simulator's /metrics: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return simSnapshot{}, errNotSim
	default:
		return simSnapshot{}, fmt.Errorf("scraping the simulator's /metrics: %s", resp.Status)
	}
	return parseSim(resp.Body)
}

// parseSim extracts a simSnapshot from a Prometheus text exposition.
func parseSim(r io.Reader) (simSnapshot, error) {
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return simSnapshot{}, fmt.Errorf("parsing the simulator's /metrics: %w", err)
	}
	var s simSnapshot
	lat, ok := fams[famLateness]
	if !ok {
		return s, errNotSim
	}
	for _, m := range lat.GetMetric() {
		var h *latenessHist
		switch label(m, "event") {
		case "first":
			h = &s.first
		case "next":
			h = &s.next
		default:
			continue
		}
		hg := m.GetHistogram()
		h.count, h.sum = hg.GetSampleCount(), hg.GetSampleSum()
		for _, b := range hg.GetBucket() {
			if !math.IsInf(b.GetUpperBound(), 1) {
				h.buckets = append(h.buckets, bucket{le: b.GetUpperBound(), cum: b.GetCumulativeCount()})
			}
		}
	}
	for _, m := range fams[famLateSq].GetMetric() {
		switch label(m, "event") {
		case "first":
			s.first.sumSq = m.GetCounter().GetValue()
		case "next":
			s.next.sumSq = m.GetCounter().GetValue()
		}
	}
	if f := fams[famITL]; f != nil && len(f.GetMetric()) > 0 {
		hg := f.GetMetric()[0].GetHistogram()
		s.itlCount, s.itlSum = hg.GetSampleCount(), hg.GetSampleSum()
	}
	if f := fams[famITLSq]; f != nil && len(f.GetMetric()) > 0 {
		s.itlSumSq = f.GetMetric()[0].GetCounter().GetValue()
	}
	return s, nil
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// cumAt is the cumulative count at upper bound le: the count of the largest
// listed bucket at or below le (an unlisted bucket of the grid is empty).
func (h *latenessHist) cumAt(le float64) uint64 {
	i, found := slices.BinarySearchFunc(h.buckets, le, func(b bucket, le float64) int {
		switch {
		case b.le < le:
			return -1
		case b.le > le:
			return 1
		}
		return 0
	})
	if found {
		return h.buckets[i].cum
	}
	if i == 0 {
		return 0
	}
	return h.buckets[i-1].cum
}

// LatenessStats describes the lateness of one kind of simulator event
// during one calibration step, in milliseconds. Mean and Std are exact;
// P50, P99 and Max are read from the simulator's log-linear histogram (the
// upper end of the bucket holding the nearest-rank sample) and may overstate
// the true value by up to 1/32.
type LatenessStats struct {
	// Count is the number of events.
	Count uint64 `json:"count"`
	// Mean and Std are the mean and population standard deviation.
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	// P50, P99 and Max are histogram quantiles.
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// latenessDelta is the lateness of the events between two scrapes.
func latenessDelta(before, after latenessHist) LatenessStats {
	n := after.count - before.count
	if n == 0 || after.count < before.count {
		return LatenessStats{}
	}
	st := LatenessStats{Count: n}
	mean := (after.sum - before.sum) / float64(n)
	st.Mean = mean * 1e3
	st.Std = math.Sqrt(math.Max(0, (after.sumSq-before.sumSq)/float64(n)-mean*mean)) * 1e3
	// The delta histogram over the union of the listed bounds.
	var les []float64
	for _, b := range after.buckets {
		les = append(les, b.le)
	}
	delta := func(le float64) uint64 { return after.cumAt(le) - before.cumAt(le) }
	quantile := func(q float64) float64 {
		rank := uint64(math.Ceil(q * float64(n)))
		rank = min(max(rank, 1), n)
		for _, le := range les {
			if delta(le) >= rank {
				return le * 1e3
			}
		}
		return les[len(les)-1] * 1e3
	}
	if len(les) > 0 {
		st.P50, st.P99, st.Max = quantile(0.5), quantile(0.99), quantile(1)
	}
	return st
}

// WrittenITL is the simulator's inter-token latency as written during one
// step, in milliseconds: what a perfect client would report.
type WrittenITL struct {
	// Count is the number of inter-token gaps.
	Count uint64 `json:"count"`
	// Mean and Std are their mean and population standard deviation.
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// itlDelta is the written ITL between two scrapes.
func itlDelta(before, after simSnapshot) WrittenITL {
	n := after.itlCount - before.itlCount
	if n == 0 || after.itlCount < before.itlCount {
		return WrittenITL{}
	}
	mean := (after.itlSum - before.itlSum) / float64(n)
	v := (after.itlSumSq-before.itlSumSq)/float64(n) - mean*mean
	return WrittenITL{Count: n, Mean: mean * 1e3, Std: math.Sqrt(math.Max(0, v)) * 1e3}
}

// SimLateness is the simulator's own contribution to one step: how late it
// wrote first tokens and later tokens, and the ITL it actually wrote.
type SimLateness struct {
	// FirstToken is the lateness of each request's first token (it adds
	// directly to the TTFT the client sees).
	FirstToken LatenessStats `json:"first_token_lateness_ms"`
	// LaterTokens is the lateness of the other tokens.
	LaterTokens LatenessStats `json:"later_token_lateness_ms"`
	// ITL is the inter-token latency as written.
	ITL WrittenITL `json:"written_itl_ms"`
}

// simDelta is the simulator's lateness between two scrapes.
func simDelta(before, after simSnapshot) SimLateness {
	return SimLateness{
		FirstToken:  latenessDelta(before.first, after.first),
		LaterTokens: latenessDelta(before.next, after.next),
		ITL:         itlDelta(before, after),
	}
}

// scrapeTimeout bounds one /metrics scrape.
const scrapeTimeout = 10 * time.Second

// scrape is scrapeSim bounded by scrapeTimeout.
func scrape(ctx context.Context, hc *http.Client, base string) (simSnapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, scrapeTimeout)
	defer cancel()
	return scrapeSim(ctx, hc, base)
}
