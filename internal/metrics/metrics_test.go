package metrics

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
)

func TestDescribeMilliseconds(t *testing.T) {
	in := []float64{0.004, 0.001, 0.002, 0.003}
	got := Describe(ITL, in, []float64{50, 99.9})
	want := MetricStats{Name: ITL, Mean: Mean(in) * 1000, Median: 2.5, Std: Std(in) * 1000,
		Percentiles: []PercentileValue{{50, Percentile(in, 50) * 1000}, {99.9, Percentile(in, 99.9) * 1000}}}
	if got.Name != want.Name || got.Mean != want.Mean || got.Median != want.Median || got.Std != want.Std ||
		!slices.Equal(got.Percentiles, want.Percentiles) {
		t.Errorf("Describe = %+v, want %+v", got, want)
	}
	if !slices.Equal(in, []float64{0.004, 0.001, 0.002, 0.003}) {
		t.Error("Describe modified its input")
	}
}

// ok builds a successful outcome: start, ttft and ITLs in seconds, latency
// = ttft + sum(itls).
func ok(start, ttft float64, outTokens int, itls ...float64) Outcome {
	lat := ttft
	for _, v := range itls {
		lat += v
	}
	return Outcome{Success: true, PromptLen: 10, OutputTokens: outTokens, TTFT: ttft, Latency: lat,
		ITLs: itls, StartTime: start, GeneratedText: "x"}
}

func TestOutputLenAndInclusion(t *testing.T) {
	words := func(s string) int { return len(s) }
	outs := []Outcome{
		ok(0, 0.1, 5, 0.1, 0.1), // usage count wins: 5
		ok(0, 0.1, 0, 0.2),      // no usage: the tokenizer counts the text
		{Success: false, PromptLen: 99, // failure: 0 tokens, excluded
			TTFT: 9, Latency: 9, ITLs: []float64{9}, Error: "boom"},
	}
	outs[1].GeneratedText = "abcd" // tokenizer counts 4
	opt := Options{PercentileMetrics: []string{TTFT, TPOT, ITL, E2EL}, Percentiles: []float64{50}, CountTokens: words}
	s := ComputeOutcomes(outs, 2, opt)
	if !slices.Equal(s.OutputLens, []int{5, 4, 0}) {
		t.Errorf("OutputLens = %v, want [5 4 0]", s.OutputLens)
	}
	if s.Completed != 2 || s.Failed != 1 || s.TotalInput != 20 || s.TotalOutput != 9 {
		t.Errorf("counts = %d/%d/%d/%d, want 2/1/20/9", s.Completed, s.Failed, s.TotalInput, s.TotalOutput)
	}
	if s.RequestThroughput != 1 || s.OutputThroughput != 4.5 || s.TotalTokenThroughput != 14.5 {
		t.Errorf("throughputs = %v/%v/%v, want 1/4.5/14.5", s.RequestThroughput, s.OutputThroughput, s.TotalTokenThroughput)
	}
	if !slices.Equal(s.FailureErrors, []string{"boom"}) || !slices.Equal(s.Errors, []string{"", "", "boom"}) {
		t.Errorf("errors = %q / %q", s.FailureErrors, s.Errors)
	}
	if !slices.Equal(s.InputLens, []int{10, 10, 99}) || s.TTFTs[2] != 9 {
		t.Errorf("per-request arrays must keep failures: %v %v", s.InputLens, s.TTFTs)
	}
	ttft, _ := s.Metric(TTFT)
	if ttft.Mean != 100 || ttft.Median != 100 {
		t.Errorf("ttft stats include the failure: %+v", ttft)
	}
	// TPOT: (latency - ttft)/(output_len - 1) with 5 and 4 tokens.
	tpot, _ := s.Metric(TPOT)
	if want := Mean([]float64{(outs[0].Latency - 0.1) / 4, (outs[1].Latency - 0.1) / 3}) * 1000; tpot.Mean != want {
		t.Errorf("tpot mean = %v, want %v", tpot.Mean, want)
	}
	itl, _ := s.Metric(ITL)
	if want := Mean([]float64{0.1, 0.1, 0.2}) * 1000; itl.Mean != want {
		t.Errorf("itl mean = %v, want %v (failure's ITLs excluded)", itl.Mean, want)
	}
	if s.RequestGoodput != nil {
		t.Error("RequestGoodput set without goodput")
	}

	// No tokenizer: a success without usage counts 1 token, and the token
	// statistics are not applicable.
	opt.CountTokens = nil
	s = ComputeOutcomes(outs, 2, opt)
	if !slices.Equal(s.OutputLens, []int{5, 1, 0}) {
		t.Errorf("OutputLens without tokenizer = %v, want [5 1 0]", s.OutputLens)
	}
	if names := metricNames(s); !slices.Equal(names, []string{E2EL}) {
		t.Errorf("metrics without tokenizer = %v, want [e2el]", names)
	}
	if s.HasTokenizer {
		t.Error("HasTokenizer without CountTokens")
	}
}

func TestTPOTOmittedForShortOutputs(t *testing.T) {
	outs := []Outcome{ok(0, 0.1, 1), ok(0, 0.2, 0), ok(0, 0.1, 3, 0.1, 0.3)}
	outs[1].GeneratedText = ""
	s := ComputeOutcomes(outs, 1, Options{
		PercentileMetrics: []string{TPOT}, Percentiles: []float64{99},
		CountTokens: func(string) int { return 0 },
	})
	tpot, _ := s.Metric(TPOT)
	want := (0.1 + 0.1 + 0.3 - 0.1) / 2 * 1000
	if tpot.Mean != want || tpot.Median != want || tpot.Std != 0 {
		t.Errorf("tpot = %+v, want only the 3-token request (%v)", tpot, want)
	}
}

func TestEmptyListsAreZero(t *testing.T) {
	outs := []Outcome{{Success: false, Error: "refused"}, {Success: false, Error: "refused"}}
	s := ComputeOutcomes(outs, 1, Options{
		PercentileMetrics: MetricOrder, Percentiles: []float64{50, 99},
		CountTokens: func(string) int { return 1 }, MaxConcurrencySet: true, RequestRateFinite: true,
		Goodput: map[string]float64{TTFT: 100},
	})
	if names := metricNames(s); !slices.Equal(names, MetricOrder) {
		t.Fatalf("metrics = %v, want all", names)
	}
	for _, m := range s.Metrics {
		if m.Mean != 0 || m.Median != 0 || m.Std != 0 || m.Percentiles[0].Value != 0 || m.Percentiles[1].Value != 0 {
			t.Errorf("%s = %+v, want zeros", m.Name, m)
		}
	}
	if s.MaxOutputTokensPerS != 0 || s.MaxConcurrentRequests != 0 || *s.RequestGoodput != 0 {
		t.Errorf("peaks/goodput = %v/%v/%v, want 0", s.MaxOutputTokensPerS, s.MaxConcurrentRequests, *s.RequestGoodput)
	}
	if s.Completed != 0 || s.Failed != 2 || len(s.FailureErrors) != 2 {
		t.Errorf("counts = %d/%d", s.Completed, s.Failed)
	}
}

func TestGoodput(t *testing.T) {
	// Dyadic times keep every comparison exact.
	outs := []Outcome{
		ok(0, 0.5, 3, 0.125, 0.125),  // ttft 0.5, tpot 0.125, e2el 0.75
		ok(0, 0.5, 1),                // 1 token: tpot counts as 0 for goodput
		ok(0, 0.25, 3, 0.375, 0.375), // tpot 0.375, e2el 1
		ok(0, 0.75, 3, 0.125, 0.125), // ttft 0.75, e2el 1
		{Success: false},             // failures never count
	}
	tests := []struct {
		name string
		slo  map[string]float64
		good float64
	}{
		{"ttft inclusive", map[string]float64{TTFT: 500}, 3},
		{"ttft and tpot", map[string]float64{TTFT: 500, TPOT: 250}, 2},
		{"tpot inclusive", map[string]float64{TPOT: 125}, 3},
		{"e2el inclusive", map[string]float64{E2EL: 750}, 2},
		{"all", map[string]float64{TTFT: 1000, TPOT: 1000, E2EL: 1000}, 4},
		{"unknown key only", map[string]float64{"itl": 1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ComputeOutcomes(outs, 2, Options{Goodput: tt.slo, CountTokens: func(string) int { return 1 }})
			if s.RequestGoodput == nil {
				t.Fatal("RequestGoodput is nil")
			}
			if *s.RequestGoodput != tt.good/2 {
				t.Errorf("goodput = %v, want %v", *s.RequestGoodput, tt.good/2)
			}
		})
	}
}

func TestPeakConcurrency(t *testing.T) {
	tests := []struct {
		name       string
		outs       []Outcome
		vllm, peak int
	}{
		// [0,1) and [1,2) touch: the departure at 1 is processed first; in
		// vLLM's bins the first also covers second 1.
		{"touching intervals", []Outcome{ok(0, 0.5, 2, 0.5), ok(1, 0.5, 2, 0.5)}, 2, 1},
		{"overlap", []Outcome{ok(0, 0.5, 2, 0.5), ok(0.5, 0.5, 2, 0.5), ok(0.75, 1, 1)}, 3, 3},
		{"nested", []Outcome{ok(0, 1, 2, 9), ok(1, 1, 1), ok(2, 1, 1), ok(2.5, 0.25, 1)}, 4, 3},
		{"sequential within a second", []Outcome{ok(0, 0.2, 1), ok(0.2, 0.2, 1), ok(0.4, 0.2, 1)}, 3, 1},
		{"failures ignored", []Outcome{ok(0, 1, 1), {Success: false, StartTime: 0, Latency: 5}}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ComputeOutcomes(tt.outs, 1, Options{})
			if s.MaxConcurrentRequests != tt.vllm || s.PeakOverlappingRequests != tt.peak {
				t.Errorf("MaxConcurrentRequests = %d, PeakOverlappingRequests = %d; want %d, %d",
					s.MaxConcurrentRequests, s.PeakOverlappingRequests, tt.vllm, tt.peak)
			}
		})
	}
}

// TestPeakConcurrencyGolden checks max_concurrent_requests against vLLM's
// one-second bins and the true peak against a sweep, both computed by
// testdata/gen_peaks.py (which restates vLLM's formula) with Debian's
// python3.
func TestPeakConcurrencyGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/peaks_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name    string   `json:"name"`
		Outputs [][3]any `json:"outputs"`
		VLLM    int      `json:"max_concurrent_requests"`
		Peak    int      `json:"peak_overlapping"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 10 {
		t.Fatalf("%d cases, want the 10 of gen_peaks.py", len(cases))
	}
	for _, c := range cases {
		outs := make([]Outcome, len(c.Outputs))
		for i, o := range c.Outputs {
			outs[i] = Outcome{Success: o[2].(bool), StartTime: o[0].(float64), Latency: o[1].(float64), TTFT: o[1].(float64), OutputTokens: 1, GeneratedText: "x"}
		}
		s := ComputeOutcomes(outs, 1, Options{})
		if s.MaxConcurrentRequests != c.VLLM || s.PeakOverlappingRequests != c.Peak {
			t.Errorf("%s: max_concurrent_requests %d, peak %d; vLLM's formula gives %d, the sweep %d",
				c.Name, s.MaxConcurrentRequests, s.PeakOverlappingRequests, c.VLLM, c.Peak)
		}
	}
}

func TestPeakOutputTokensPerSecond(t *testing.T) {
	tests := []struct {
		name string
		outs []Outcome
		want float64
	}{
		// token times 10.2, 10.5, 10.9 | 11.3: bins [3, 1].
		{"one request", []Outcome{ok(10, 0.2, 4, 0.3, 0.4, 0.4)}, 3},
		// t0 = 1; times 1.5, 1.75, 1.875 (bin 0), 2.0 (bin 1, boundary), and
		// 2.5, 3.5 (bins 1, 2): bins [3, 2, 1].
		{"two requests", []Outcome{ok(1, 0.5, 4, 0.25, 0.125, 0.125), ok(2, 0.5, 2, 1)}, 3},
		// times 0.5, 0.75, 1.0, 1.75: the token at exactly 1.0 goes to bin 1,
		// so bins [2, 2] (counting it in bin 0 would give 3).
		{"boundary", []Outcome{ok(0, 0.5, 4, 0.25, 0.25, 0.75)}, 2},
		{"failure ignored", []Outcome{ok(0, 0.1, 1), {Success: false, StartTime: 0, TTFT: 0.1, ITLs: []float64{0.1, 0.1}}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ComputeOutcomes(tt.outs, 1, Options{})
			if s.MaxOutputTokensPerS != tt.want {
				t.Errorf("MaxOutputTokensPerS = %v, want %v", s.MaxOutputTokensPerS, tt.want)
			}
		})
	}
}

func metricNames(s *Summary) []string {
	var n []string
	for _, m := range s.Metrics {
		n = append(n, m.Name)
	}
	return n
}

func TestMetricSelection(t *testing.T) {
	tok := func(string) int { return 1 }
	all := []string{E2ELIncludingClientQueue, ClientQueueTime, E2EL, ITL, TPOT, TTFT, "bogus"}
	tests := []struct {
		name string
		opt  Options
		want []string
	}{
		{"fixed order", Options{PercentileMetrics: all, CountTokens: tok, MaxConcurrencySet: true, RequestRateFinite: true}, MetricOrder},
		{"no concurrency limit", Options{PercentileMetrics: all, CountTokens: tok, RequestRateFinite: true}, []string{TTFT, TPOT, ITL, E2EL}},
		{"infinite rate", Options{PercentileMetrics: all, CountTokens: tok, MaxConcurrencySet: true}, []string{TTFT, TPOT, ITL, E2EL, ClientQueueTime}},
		{"no tokenizer", Options{PercentileMetrics: all, MaxConcurrencySet: true}, []string{E2EL, ClientQueueTime}},
		{"subset", Options{PercentileMetrics: []string{ITL, TTFT}, CountTokens: tok}, []string{TTFT, ITL}},
		{"none", Options{CountTokens: tok}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ComputeOutcomes([]Outcome{ok(0, 0.1, 2, 0.1)}, 1, tt.opt)
			if got := metricNames(s); !slices.Equal(got, tt.want) {
				t.Errorf("metrics = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestQueueMetrics(t *testing.T) {
	outs := []Outcome{ok(0, 0.1, 2, 0.1), ok(0, 0.1, 2, 0.3), {Success: false, QueueTime: 7}}
	outs[0].QueueTime, outs[1].QueueTime = 0.5, 1.5
	s := ComputeOutcomes(outs, 1, Options{
		PercentileMetrics: []string{ClientQueueTime, E2ELIncludingClientQueue},
		MaxConcurrencySet: true, RequestRateFinite: true,
	})
	q, _ := s.Metric(ClientQueueTime)
	if q.Mean != 1000 || q.Median != 1000 || q.Std != 500 {
		t.Errorf("client_queue_time = %+v, want mean 1000 std 500", q)
	}
	e, _ := s.Metric(E2ELIncludingClientQueue)
	if want := Mean([]float64{0.2 + 0.5, 0.4 + 1.5}) * 1000; e.Mean != want {
		t.Errorf("e2el incl queue mean = %v, want %v", e.Mean, want)
	}
	if !slices.Equal(s.QueueTimes, []float64{0.5, 1.5, 7}) {
		t.Errorf("QueueTimes = %v", s.QueueTimes)
	}
}

func TestFromRecord(t *testing.T) {
	ms := time.Millisecond
	r := &record.Record{
		Intended: 10 * ms, Released: 20 * ms, Start: 50 * ms,
		Chunks: []time.Duration{150 * ms, 175 * ms, 250 * ms}, End: 250 * ms,
		PromptLen: 7, OutputTokens: 3, GeneratedText: "abc", Success: true,
	}
	o := FromRecord(r)
	want := Outcome{Success: true, PromptLen: 7, OutputTokens: 3, GeneratedText: "abc",
		TTFT: 0.1, Latency: 0.2, ITLs: []float64{0.025, 0.075}, StartTime: 0.05, QueueTime: 0.03}
	if o.Success != want.Success || o.PromptLen != want.PromptLen || o.OutputTokens != want.OutputTokens ||
		o.GeneratedText != want.GeneratedText || o.TTFT != want.TTFT || o.Latency != want.Latency ||
		!slices.Equal(o.ITLs, want.ITLs) || o.StartTime != want.StartTime || o.QueueTime != want.QueueTime {
		t.Errorf("FromRecord = %+v, want %+v", o, want)
	}
	failed := *r
	failed.Success, failed.Error, failed.Chunks = false, "cut off", failed.Chunks[:2]
	f := FromRecord(&failed)
	if f.Latency != 0 || f.GeneratedText != "" || f.TTFT != 0.1 || !slices.Equal(f.ITLs, []float64{0.025}) || f.Error != "cut off" {
		t.Errorf("FromRecord(failed) = %+v, want latency and text cleared, partial chunks kept", f)
	}
	s := Compute([]*record.Record{r}, 2*time.Second, Options{})
	if s.Duration != 2 || s.RequestThroughput != 0.5 || s.ITLs[0][1] != 0.075 {
		t.Errorf("Compute = %+v", s)
	}
}

func TestComputeProbe(t *testing.T) {
	mk := func(ok bool, lat time.Duration) *record.Record {
		r := &record.Record{Success: ok, Start: time.Second}
		if ok {
			r.End = r.Start + lat
		}
		return r
	}
	if p := ComputeProbe([]*record.Record{mk(false, 0)}); p != nil {
		t.Errorf("ComputeProbe with no success = %+v, want nil", p)
	}
	p := ComputeProbe([]*record.Record{mk(true, 30*time.Millisecond), mk(false, 0),
		mk(true, 10*time.Millisecond), mk(true, 20*time.Millisecond)})
	want := ProbeSummary{Completed: 3, Failed: 1, MedianE2ELMs: 20, P99E2ELMs: Percentile([]float64{0.01, 0.02, 0.03}, 99) * 1000, MaxE2ELMs: 30}
	if p == nil || *p != want {
		t.Errorf("ComputeProbe = %+v, want %+v", p, want)
	}
}

// The accumulator, fed records in completion order, gives exactly the
// summary Compute gives for the same records in request order: numpy's
// sums and percentiles depend on the order of the values.
func TestAccumulatorOrderIndependent(t *testing.T) {
	ms := time.Millisecond
	var recs []*record.Record
	for i := range 40 {
		r := &record.Record{Index: i, Released: time.Duration(i) * ms, Start: time.Duration(i)*ms + time.Duration(i%3)*ms,
			PromptLen: 10 + i%7, OutputTokens: i % 5, GeneratedText: "a b c"[:1+i%5]}
		if i%9 != 4 {
			r.Success = true
			for k := range 1 + i%6 {
				r.Chunks = append(r.Chunks, r.Start+time.Duration(30+7*i+11*k*(1+i%4))*time.Microsecond*100)
			}
			r.End = r.Chunks[len(r.Chunks)-1]
		} else {
			r.Error = "boom"
		}
		recs = append(recs, r)
	}
	opt := Options{PercentileMetrics: MetricOrder, Percentiles: []float64{50, 90, 99.9}, Goodput: map[string]float64{"ttft": 5},
		CountTokens: func(s string) int { return len(s) }, MaxConcurrencySet: true, RequestRateFinite: true}
	want := Compute(recs, 3*time.Second, opt)
	// Completion order: a fixed permutation.
	acc := NewAccumulator(opt)
	for k := range recs {
		acc.Add(recs[(k*17+5)%len(recs)])
	}
	if acc.Len() != len(recs) {
		t.Fatalf("Len %d", acc.Len())
	}
	got, err := acc.Close(3 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.Arrays(got, true); err != nil {
		t.Fatal(err)
	}
	// Compare through the values, not the CountTokens func.
	if !reflect.DeepEqual(got, want) {
		t.Errorf("accumulator summary differs from Compute:\n got %+v\nwant %+v", got, want)
	}
	if got.Completed == 0 || got.Failed == 0 || len(got.Metrics) != len(MetricOrder) {
		t.Errorf("the test data does not exercise the summary: %+v", got)
	}
	empty, err := NewAccumulator(opt).Close(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if empty.Completed != 0 || len(empty.InputLens) != 0 {
		t.Errorf("empty accumulator: %+v", empty)
	}
}

// Records never sent (an interrupted run's queued requests) are neither
// completed nor failed, and have no entry in the per-request lists: vLLM's
// outputs hold only the requests that ran.
func TestComputeLeavesOutNotSent(t *testing.T) {
	ok := &record.Record{Index: 0, Success: true, Start: 0, Chunks: []time.Duration{10 * time.Millisecond}, End: 20 * time.Millisecond, PromptLen: 4, OutputTokens: 2}
	failed := &record.Record{Index: 1, Error: "request cancelled: context canceled"}
	notSent := &record.Record{Index: 2, Error: "request cancelled before it was sent: context canceled", NotSent: true}
	s := Compute([]*record.Record{ok, failed, notSent, notSent}, time.Second, Options{})
	if s.Completed != 1 || s.Failed != 1 || len(s.Errors) != 2 || len(s.FailureErrors) != 1 || len(s.InputLens) != 2 {
		t.Errorf("completed %d, failed %d, errors %q, failure errors %q, %d input lens; want 1, 1, 2 entries, 1, 2",
			s.Completed, s.Failed, s.Errors, s.FailureErrors, len(s.InputLens))
	}
}

// The reasoning summary covers the successes that reasoned: the times to
// their first reasoning and first answer text, and their tokens apart (the
// server's reasoning count, else the reasoning messages).
func TestReasoningSummary(t *testing.T) {
	outs := []Outcome{
		{Success: true, OutputTokens: 10, ReasoningChunks: 4, ReasoningTokens: 6, TTFR: 0.1, TTFA: 0.5, TTFT: 0.1, Latency: 1},
		{Success: true, OutputTokens: 8, ReasoningChunks: 3, TTFR: 0.2, TTFA: 0.4, TTFT: 0.2, Latency: 1},
		{Success: true, OutputTokens: 5, ReasoningChunks: 5, TTFR: 0.3, TTFT: 0.3, Latency: 1}, // reasoned to the end
		{Success: true, OutputTokens: 7, TTFT: 0.05, Latency: 1},                               // no reasoning
		{Success: false, ReasoningChunks: 2, TTFR: 0.1, Error: "boom"},                         // failures never count
	}
	s := ComputeOutcomes(outs, 2, Options{Percentiles: []float64{50}})
	rs := s.Reasoning
	if rs == nil {
		t.Fatal("no reasoning summary")
	}
	if rs.Requests != 3 || rs.Answered != 2 || rs.ReasoningTokens != 6+3+5 || rs.AnswerTokens != 4+5+0 {
		t.Errorf("summary %+v", rs)
	}
	if !nearly(rs.TTFR.Mean, 200) || !nearly(rs.TTFR.Median, 200) || !nearly(rs.TTFA.Mean, 450) || !nearly(rs.TTFA.Percentiles[0].Value, 450) {
		t.Errorf("TTFR %+v, TTFA %+v", rs.TTFR, rs.TTFA)
	}
	if s := ComputeOutcomes(outs[3:4], 1, Options{}); s.Reasoning != nil {
		t.Errorf("a run without reasoning has a summary %+v", s.Reasoning)
	}
}

func nearly(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// RTFx is the successes' input audio seconds per second of the run: 3 s
// and 5 s of audio (a failure's 7 s not counted) in a 2 s run are 4.
func TestRTFx(t *testing.T) {
	outs := []Outcome{
		{Success: true, OutputTokens: 3, InputAudioSeconds: 3, TTFT: 0.1, Latency: 0.5},
		{Success: true, OutputTokens: 2, InputAudioSeconds: 5, TTFT: 0.1, Latency: 0.5},
		{Success: false, InputAudioSeconds: 7, Error: "boom"},
	}
	if s := ComputeOutcomes(outs, 2, Options{}); s.RTFx != 4 {
		t.Errorf("RTFx %v, want 4", s.RTFx)
	}
	if s := ComputeOutcomes(outs[:0], 2, Options{}); s.RTFx != 0 {
		t.Errorf("RTFx without audio %v", s.RTFx)
	}
}
