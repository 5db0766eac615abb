package sim

import (
	"bytes"
	"math"
	"math/bits"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Bucket upper bounds (seconds) of vLLM's latency histograms.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
		0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75,
		1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}
	e2eBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0,
		40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
)

// histogram is a lock-free Prometheus histogram over durations.
type histogram struct {
	bounds []time.Duration // upper bounds, inclusive
	le     []string        // bounds as Prometheus label values
	counts []atomic.Uint64 // per bucket, not cumulative; the last is +Inf
	sumNS  atomic.Int64    // sum of observations in nanoseconds
	count  atomic.Uint64   // number of observations
}

// newHistogram returns a histogram with the given upper bounds in seconds.
func newHistogram(secs []float64) *histogram {
	h := &histogram{counts: make([]atomic.Uint64, len(secs)+1)}
	for _, s := range secs {
		h.bounds = append(h.bounds, time.Duration(math.Round(s*1e9)))
		h.le = append(h.le, formatPyFloat(s))
	}
	return h
}

// observe adds one duration.
func (h *histogram) observe(d time.Duration) {
	i := 0
	for i < len(h.bounds) && d > h.bounds[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sumNS.Add(int64(d))
	h.count.Add(1)
}

// latencyHist is a log-linear histogram of non-negative durations in
// nanoseconds: values below 64ns are exact, larger ones fall in 32 buckets per
// power of two, so a quantile read from it is within 1/32 (3.1%) of the true
// sample value. It also keeps the exact count, sum and maximum.
type latencyHist struct {
	counts [latencyBuckets]atomic.Uint64
	count  atomic.Uint64
	sumNS  atomic.Uint64
	maxNS  atomic.Uint64
}

const (
	latencySubBits = 5
	latencySub     = 1 << latencySubBits // buckets per power of two
	latencyBuckets = 2*latencySub + (63-latencySubBits-1)*latencySub
)

// latencyIndex returns the bucket of v.
func latencyIndex(v uint64) int {
	if v < 2*latencySub {
		return int(v)
	}
	shift := bits.Len64(v) - latencySubBits - 1 // v>>shift ∈ [32, 64)
	return 2*latencySub + (shift-1)*latencySub + int(v>>shift) - latencySub
}

// latencyUpper returns the largest value in bucket i.
func latencyUpper(i int) uint64 {
	if i < 2*latencySub {
		return uint64(i)
	}
	j := i - 2*latencySub
	shift := j/latencySub + 1
	m := uint64(j%latencySub + latencySub)
	return (m+1)<<shift - 1
}

// record adds one duration; negative durations count as 0.
func (h *latencyHist) record(d time.Duration) {
	v := uint64(max(d, 0))
	h.counts[latencyIndex(v)].Add(1)
	h.count.Add(1)
	h.sumNS.Add(v)
	for {
		m := h.maxNS.Load()
		if v <= m || h.maxNS.CompareAndSwap(m, v) {
			break
		}
	}
}

// quantile returns the nearest-rank q-quantile (the ⌈q·n⌉-th smallest
// sample), as the upper end of its bucket capped at the exact maximum; 0 when
// empty.
func (h *latencyHist) quantile(q float64) time.Duration {
	n := h.count.Load()
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
	rank = min(max(rank, 1), n)
	var seen uint64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			return time.Duration(min(latencyUpper(i), h.maxNS.Load()))
		}
	}
	return time.Duration(h.maxNS.Load())
}

// Finish reasons, as vLLM labels vllm:request_success_total.
const (
	finishStop   = iota // natural EOS
	finishLength        // max tokens reached
	finishAbort         // client went away
	numFinish
)

var finishNames = [numFinish]string{"stop", "length", "abort"}

// metrics holds every counter the server exposes.
type metrics struct {
	requests       atomic.Uint64 // generation requests received
	failed         atomic.Uint64 // generation requests answered with an error status
	injected       atomic.Uint64 // of which by FailEvery and Faults
	running        atomic.Int64
	waiting        atomic.Int64 // requests queued for a Config.MaxNumSeqs slot
	promptTokens   atomic.Uint64
	genTokens      atomic.Uint64
	finished       [numFinish]atomic.Uint64
	ttft, itl, e2e *histogram
	lateness       latencyHist

	// Streamed token events by kind, for per-step deltas between two
	// scrapes: a choice's first token (it sets the TTFT) and later tokens.
	firstLate, nextLate     latencyHist
	firstLateSq, nextLateSq atomicFloat // sums of squared lateness, s²
	itlSq                   atomicFloat // sum of squared written ITLs, s²

	spec   *specCounters // nil without Config.SpecDecodeTokens
	prefix *prefixCache  // nil without Config.PrefixCacheBlocks
}

// atomicFloat is a float64 sum safe for concurrent adds.
type atomicFloat struct{ bits atomic.Uint64 }

// add adds v.
func (f *atomicFloat) add(v float64) {
	for {
		old := f.bits.Load()
		if f.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// load returns the sum.
func (f *atomicFloat) load() float64 { return math.Float64frombits(f.bits.Load()) }

// recordToken records the lateness of streamed token k of a choice, and
// (k > 0) the inter-token latency it was written with.
func (m *metrics) recordToken(k int, late, itl time.Duration) {
	m.lateness.record(late)
	l := max(late, 0).Seconds()
	if k == 0 {
		m.firstLate.record(late)
		m.firstLateSq.add(l * l)
		return
	}
	m.nextLate.record(late)
	m.nextLateSq.add(l * l)
	m.itl.observe(itl)
	m.itlSq.add(itl.Seconds() * itl.Seconds())
}

func newMetrics() *metrics {
	return &metrics{
		ttft: newHistogram(ttftBuckets),
		itl:  newHistogram(itlBuckets),
		e2e:  newHistogram(e2eBuckets),
	}
}

// Stats is a snapshot of the simulator's own counters.
type Stats struct {
	// Requests counts generation requests received (completions and chat),
	// including rejected and failed ones.
	Requests uint64
	// Failed counts generation requests answered with an error status,
	// including the InjectedFailures.
	Failed uint64
	// InjectedFailures counts the faults injected by Config.FailEvery and
	// Config.Faults.
	InjectedFailures uint64
	// DroppedRequests counts requests read and then answered by closing
	// their connection (Config.DropEvery).
	DroppedRequests uint64
	// RepeatedRequests counts generation requests whose X-Request-Id had
	// arrived before; counted only with Config.CloseAfterStream or
	// DropEvery.
	RepeatedRequests uint64
	// RefusedConns counts connections reset as soon as they were accepted
	// (Config.MaxConns).
	RefusedConns uint64
	// Aborted counts requests whose client went away before the end.
	Aborted uint64
	// Completed counts requests (batched prompts count once each) that
	// finished with "stop" or "length".
	Completed uint64
	// Running is the number of requests being generated now.
	Running int64
	// PromptTokens counts the prompt tokens of generations that emitted
	// their first token; GeneratedTokens counts emitted tokens.
	PromptTokens, GeneratedTokens uint64
	// Events counts the scheduled events whose lateness was measured: every
	// token event of a stream (the chat role delta rides with token 0, the
	// usage and [DONE] events with the last token), and every non-streaming
	// response.
	Events uint64
	// LatenessMean, LatenessP50, LatenessP99 and LatenessMax describe how long
	// after its due time each event was flushed to the connection. The
	// percentiles are nearest-rank and read from a log-linear histogram, so
	// they may overstate the true sample by up to 1/32; mean and max are
	// exact.
	LatenessMean, LatenessP50, LatenessP99, LatenessMax time.Duration
	// Spec are the speculative-decoding counters, summed over the engines
	// (zero without Config.SpecDecodeTokens).
	Spec SpecStats
	// PrefixCache are the prefix-cache counters (zero without
	// Config.PrefixCacheBlocks).
	PrefixCache PrefixCacheStats
}

// refusedConns counts the connections Config.MaxConns refused.
func (s *Server) refusedConns() uint64 {
	if s.limit == nil {
		return 0
	}
	return s.limit.refused.Load()
}

// Stats returns a snapshot of the server's counters and write lateness.
func (s *Server) Stats() Stats {
	m := s.metrics
	st := Stats{
		Requests:         m.requests.Load(),
		Failed:           m.failed.Load(),
		InjectedFailures: m.injected.Load(),
		DroppedRequests:  s.conns.dropped.Load(),
		RepeatedRequests: s.conns.repeated.Load(),
		RefusedConns:     s.refusedConns(),
		Aborted:          m.finished[finishAbort].Load(),
		Completed:        m.finished[finishStop].Load() + m.finished[finishLength].Load(),
		Running:          m.running.Load(),
		PromptTokens:     m.promptTokens.Load(),
		GeneratedTokens:  m.genTokens.Load(),
		Events:           m.lateness.count.Load(),
		LatenessP50:      m.lateness.quantile(0.5),
		LatenessP99:      m.lateness.quantile(0.99),
		LatenessMax:      time.Duration(m.lateness.maxNS.Load()),
		Spec:             m.spec.stats(),
		PrefixCache:      m.prefix.stats(),
	}
	if st.Events > 0 {
		st.LatenessMean = time.Duration(m.lateness.sumNS.Load() / st.Events)
	}
	return st
}

// formatPyFloat formats v the way Python's repr does for the values used
// here: integral values keep one decimal ("1.0"), others use the shortest
// representation ("0.001").
func formatPyFloat(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e16 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// seconds formats a duration in seconds.
func seconds(d time.Duration) string {
	return formatPyFloat(d.Seconds())
}

// serveMetrics writes the Prometheus text exposition (format 0.0.4).
func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	m := s.metrics
	labels := `engine="0",model_name=` + strconv.Quote(s.cfg.Model)
	var b bytes.Buffer
	header := func(name, typ, help string) {
		b.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " " + typ + "\n")
	}
	sample := func(name, lbls, value string) {
		b.WriteString(name + "{" + lbls + "} " + value + "\n")
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) + ".0" }

	header("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.")
	sample("vllm:num_requests_running", labels, strconv.FormatInt(m.running.Load(), 10)+".0")
	header("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.")
	sample("vllm:num_requests_waiting", labels, strconv.FormatInt(m.waiting.Load(), 10)+".0") // Config.MaxNumSeqs's queue

	m.prefix.write(&b, labels)

	header("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.")
	sample("vllm:prompt_tokens_total", labels, u(m.promptTokens.Load()))
	header("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.")
	sample("vllm:generation_tokens_total", labels, u(m.genTokens.Load()))
	header("vllm:request_success_total", "counter", "Count of successfully processed requests.")
	for r := range numFinish {
		sample("vllm:request_success_total",
			`engine="0",finished_reason="`+finishNames[r]+`",model_name=`+strconv.Quote(s.cfg.Model),
			u(m.finished[r].Load()))
	}

	hist := func(name, help string, h *histogram) {
		header(name, "histogram", help)
		var cum uint64
		for i, le := range h.le {
			cum += h.counts[i].Load()
			sample(name+"_bucket", labels+`,le="`+le+`"`, u(cum))
		}
		cum += h.counts[len(h.le)].Load()
		sample(name+"_bucket", labels+`,le="+Inf"`, u(cum))
		sample(name+"_count", labels, u(h.count.Load()))
		sample(name+"_sum", labels, seconds(time.Duration(h.sumNS.Load())))
	}
	hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", m.ttft)
	hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", m.itl)
	hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", m.e2e)

	lat := &m.lateness
	header("vbench_sim_write_lateness_seconds", "summary",
		"How long after its scheduled time the simulator flushed each event (quantiles within 1/32).")
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		sample("vbench_sim_write_lateness_seconds", `quantile="`+formatPyFloat(q)+`"`, seconds(lat.quantile(q)))
	}
	b.WriteString("vbench_sim_write_lateness_seconds_sum " + seconds(time.Duration(lat.sumNS.Load())) + "\n")
	b.WriteString("vbench_sim_write_lateness_seconds_count " + u(lat.count.Load()) + "\n")
	header("vbench_sim_write_lateness_max_seconds", "gauge", "Largest event write lateness so far.")
	b.WriteString("vbench_sim_write_lateness_max_seconds " + seconds(time.Duration(lat.maxNS.Load())) + "\n")

	header("vbench_sim_event_lateness_seconds", "histogram",
		`How long after its scheduled time the simulator flushed each streamed token, by event: "first" (a choice's first token, which sets the TTFT) or "next" (later tokens). Log-linear buckets within 1/32; only non-empty buckets are listed.`)
	for _, e := range []struct {
		name string
		h    *latencyHist
	}{{"first", &m.firstLate}, {"next", &m.nextLate}} {
		lbl := `event="` + e.name + `"`
		var cum uint64
		for i := range e.h.counts {
			if c := e.h.counts[i].Load(); c > 0 {
				cum += c
				sample("vbench_sim_event_lateness_seconds_bucket", lbl+`,le="`+seconds(time.Duration(latencyUpper(i)))+`"`, u(cum))
			}
		}
		sample("vbench_sim_event_lateness_seconds_bucket", lbl+`,le="+Inf"`, u(cum))
		sample("vbench_sim_event_lateness_seconds_sum", lbl, seconds(time.Duration(e.h.sumNS.Load())))
		sample("vbench_sim_event_lateness_seconds_count", lbl, u(cum))
	}
	header("vbench_sim_event_lateness_squared_seconds_total", "counter",
		"Sum of the squared lateness (s²) of streamed tokens, by event, for the variance between two scrapes.")
	sample("vbench_sim_event_lateness_squared_seconds_total", `event="first"`, formatPyFloat(m.firstLateSq.load()))
	sample("vbench_sim_event_lateness_squared_seconds_total", `event="next"`, formatPyFloat(m.nextLateSq.load()))
	header("vbench_sim_written_itl_squared_seconds_total", "counter",
		"Sum of the squared inter-token latencies (s²) of streamed tokens as written; with vllm:inter_token_latency_seconds' sum and count it gives their variance between two scrapes.")
	sample("vbench_sim_written_itl_squared_seconds_total", labels, formatPyFloat(m.itlSq.load()))
	m.spec.write(&b, s.cfg.Model)
	header("vbench_sim_injected_failures_total", "counter", "Requests failed on purpose by fail-every and the injected faults.")
	b.WriteString("vbench_sim_injected_failures_total " + u(m.injected.Load()) + "\n")
	if s.cfg.CloseAfterStream || s.cfg.DropEvery > 0 {
		header("vbench_sim_dropped_requests_total", "counter", "Requests read and then answered by closing the connection (drop-every).")
		b.WriteString("vbench_sim_dropped_requests_total " + u(s.conns.dropped.Load()) + "\n")
		header("vbench_sim_repeated_requests_total", "counter", "Generation requests whose X-Request-Id had arrived before.")
		b.WriteString("vbench_sim_repeated_requests_total " + u(s.conns.repeated.Load()) + "\n")
	}

	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}
