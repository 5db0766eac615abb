package pipeline

import (
	"github.com/vbench/vbench/internal/hostmem"
	"github.com/vbench/vbench/internal/scenario"
)

// The memory model of a run's prepared requests. vbench builds every
// request before the clock starts (dataset, then payloads) and keeps a
// record per request, so memory grows with load.num_prompts:
//   - while prompts are built, each holds its token ids (8 bytes each)
//     and its text (bytesPerToken each);
//   - the request keeps the text, and its payload a JSON copy of it;
//   - the record keeps a timestamp (8 bytes) and the text of each output
//     token;
//   - plus a fixed overhead per request: the request, payload and record
//     structs, the request id, its headers;
//   - all of it twice: Go's collector lets the heap grow to twice the
//     live data before it collects (GOGC=100), and building prompts
//     (encode, decode, re-encode) leaves that much garbage.
//
// For 1024-token random prompts this gives 53 KiB per request; a run of
// 4000 such requests against the in-process simulator measured 69 KiB of
// peak RSS per request (the simulator's copies included).
const (
	// bytesPerToken is the text of one random token. Random tokens are
	// drawn uniformly from the vocabulary, whose entries are longer than
	// the tokens of ordinary text (about 4 bytes); 8 covers the
	// 100k-200k vocabularies with room to spare.
	bytesPerToken = 8
	// tokenIDBytes is one token id while a prompt is built ([]int).
	tokenIDBytes = 8
	// outputTokenBytes is one output token in a record: a timestamp and
	// its text.
	outputTokenBytes = 8 + bytesPerToken
	// requestOverhead is the fixed memory of one request: dataset request,
	// prepared payload (JSON keys, model name, sampling fields), its
	// cloned headers and x-request-id, and its record.
	requestOverhead = 2048
	// gcFactor is the heap's growth over live data before a collection.
	gcFactor = 2
)

// memoryEstimate is the estimated peak memory of one run's prepared
// requests.
type memoryEstimate struct {
	bytes      float64
	perRequest float64
}

// estimateMemory estimates the memory the prepared requests of sc need.
// It knows the random dataset (the only one vbench runs); ok is false for
// others.
func estimateMemory(sc *scenario.Scenario) (memoryEstimate, bool) {
	r := sc.Dataset.Random
	if r == nil {
		return memoryEstimate{}, false
	}
	in := float64(r.PrefixLen) + float64(r.InputLen)*(1+r.RangeRatio.Input)
	out := float64(r.OutputLen) * (1 + r.RangeRatio.Output)
	per := gcFactor * (in*(tokenIDBytes+bytesPerToken) + in*bytesPerToken + out*outputTokenBytes + requestOverhead)
	return memoryEstimate{bytes: per * float64(sc.Load.NumPrompts), perRequest: per}, true
}

// availableMemory is the memory a run may use (hostmem.Available on this
// machine). It is a variable so that tests can set it.
var availableMemory = func() (uint64, string, bool) {
	return hostmem.Available("/proc", "/sys/fs/cgroup")
}

// checkMemory refuses a run whose prepared requests cannot fit in the
// available memory, before anything is sampled, naming the estimate and
// the memory available.
func checkMemory(sc *scenario.Scenario) error {
	est, ok := estimateMemory(sc)
	if !ok {
		return nil
	}
	avail, source, ok := availableMemory()
	if !ok || est.bytes <= float64(avail) {
		return nil
	}
	r := sc.Dataset.Random
	return unsupported("load.num_prompts %d: the prepared requests need about %s (%s per request for %d-token prompts and %d output tokens), "+
		"more than the %s available (%s); lower load.num_prompts, dataset.random.input_len or dataset.random.output_len",
		sc.Load.NumPrompts, hostmem.FormatBytes(est.bytes), hostmem.FormatBytes(est.perRequest), r.PrefixLen+r.InputLen, r.OutputLen,
		hostmem.FormatBytes(float64(avail)), source)
}
