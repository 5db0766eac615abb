package pipeline

import (
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/hostmem"
	"github.com/vbench/vbench/internal/scenario"
)

// The memory model of a run. A run streams: its requests are made a
// window ahead of the schedule (all of them first only for the kinds that
// must see every row), its records are folded into files as they arrive,
// and nothing else grows with its length. Its peak RSS is
//
//	processBase                                   the binary, the runtime, a built-in tokenizer, the fold's buffers
//	+ the dataset kind's own (dataset.Kind.Memory) a file read whole, a chunk being made, requests built whole
//	+ 2 × min(n, windowSize) × (8 × prompt tokens + 256)   the window of rendered payloads, and their garbage
//	+ min(n, runSettle) × (512 + 5 × output tokens)        the heap the records and their garbage reach over a run's first requests
//	+ 4 bytes × n with request_rate inf and max_concurrency (the requests waiting for a slot, delta-encoded)
//	+ 16 KiB × n with request_rate inf and no max_concurrency (every request in flight at once: its goroutine, connection and record)
//
// The constants were measured with BenchmarkRunMemory and vbench serve
// runs against vbench sim on a 2-core host, generated and file-backed
// datasets from 2k to 1M requests (TestEstimateMemoryMeasured lists them):
// the estimate is within 20 % of each measured peak.
const (
	processBase = 56 << 20
	runSettle   = 100000
)

// memoryEstimate is the estimated peak memory of one run.
type memoryEstimate struct {
	bytes      float64
	perRequest float64 // what each request adds, for the message
	kind       string
	unlimited  bool // no max_concurrency
}

// estimateMemory estimates the peak memory of a run of sc.
func estimateMemory(sc *scenario.Scenario) memoryEstimate {
	n := float64(max(sc.Load.NumPrompts, 0))
	m := dataset.MemoryOf(sc.Dataset, sc.Load.NumPrompts)
	window := 2 * min(n, windowSize) * (8*m.PromptTokens + 256)
	settle := min(n, runSettle) * (512 + 5*m.OutputTokens)
	per := m.PerRequest
	limited := sc.Load.MaxConcurrency != nil && *sc.Load.MaxConcurrency > 0
	switch {
	case sc.Load.RequestRate.IsInf() && limited:
		per += 4
	case sc.Load.RequestRate.IsInf():
		per += 16 << 10
	}
	return memoryEstimate{bytes: processBase + m.Fixed + window + settle + n*per, perRequest: per, kind: sc.Dataset.Name, unlimited: !limited}
}

// availableMemory is the memory a run may use (hostmem.Available on this
// machine). It is a variable so that tests can set it.
var availableMemory = func() (uint64, string, bool) {
	return hostmem.Available("/proc", "/sys/fs/cgroup")
}

// checkMemory refuses a run that cannot fit in the available memory,
// before anything is sampled, naming the estimate and the memory
// available.
func checkMemory(sc *scenario.Scenario) error {
	est := estimateMemory(sc)
	avail, source, ok := availableMemory()
	if !ok || est.bytes <= float64(avail) {
		return nil
	}
	hint := "lower load.num_prompts"
	if est.unlimited {
		hint += " or set load.max_concurrency"
	}
	return unsupported("load.num_prompts %d: a run of dataset %s needs about %s (%s per request), more than the %s available (%s); %s",
		sc.Load.NumPrompts, est.kind, hostmem.FormatBytes(est.bytes), hostmem.FormatBytes(est.perRequest),
		hostmem.FormatBytes(float64(avail)), source, hint)
}
