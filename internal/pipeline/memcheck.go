package pipeline

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

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

// availableMemory is the memory a run may use: /proc/meminfo's
// MemAvailable, or what is left under the cgroup's limit if that is less.
// It is a variable so that tests can set it.
var availableMemory = func() (uint64, string, bool) {
	return readAvailableMemory("/proc/meminfo", "/sys/fs/cgroup")
}

// readAvailableMemory reads MemAvailable from meminfo and the memory left
// under the cgroup (v2 memory.max − memory.current, or v1
// memory/memory.limit_in_bytes − memory.usage_in_bytes) under cgroupRoot,
// and returns the smaller with where it comes from. ok is false when
// neither can be read (not Linux).
func readAvailableMemory(meminfo, cgroupRoot string) (avail uint64, source string, ok bool) {
	if kb, found := meminfoField(meminfo, "MemAvailable"); found {
		avail, source, ok = kb*1024, "MemAvailable in "+meminfo, true
	}
	limit, used, cgFile, cgOK := cgroupMemory(cgroupRoot)
	if cgOK {
		left := uint64(0)
		if limit > used {
			left = limit - used
		}
		if !ok || left < avail {
			avail, source, ok = left, fmt.Sprintf("the cgroup limit of %s (%s) less %s in use", formatBytes(float64(limit)), cgFile, formatBytes(float64(used))), true
		}
	}
	return avail, source, ok
}

// meminfoField returns a "Name: N kB" field of /proc/meminfo, in kB.
func meminfoField(path, name string) (uint64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != name {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// cgroupMemory returns the memory limit and use of the process's cgroup:
// cgroup v2 at root, else v1 under root/memory. ok is false when there is
// no limit ("max", or v1's huge sentinel) or no cgroup file.
func cgroupMemory(root string) (limit, used uint64, file string, ok bool) {
	read := func(name string) (uint64, bool) {
		b, err := os.ReadFile(root + "/" + name)
		if err != nil {
			return 0, false
		}
		n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		return n, err == nil
	}
	for _, files := range [][2]string{
		{"memory.max", "memory.current"},
		{"memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes"},
	} {
		l, lok := read(files[0])
		if !lok {
			continue
		}
		// cgroup v1 reports "no limit" as a page-rounded MaxInt64.
		if l >= math.MaxInt64/2 {
			return 0, 0, "", false
		}
		u, _ := read(files[1])
		return l, u, root + "/" + files[0], true
	}
	return 0, 0, "", false
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
		sc.Load.NumPrompts, formatBytes(est.bytes), formatBytes(est.perRequest), r.PrefixLen+r.InputLen, r.OutputLen,
		formatBytes(float64(avail)), source)
}

// formatBytes writes n in binary units: "512 B", "3.2 GiB".
func formatBytes(n float64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%.0f B", n)
	}
	exp := 0
	for n >= unit && exp < 6 {
		n /= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", n, "KMGTPE"[exp-1])
}
