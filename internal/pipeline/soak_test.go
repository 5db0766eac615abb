package pipeline

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/scenario"
)

// soakRequests is TestSoak's size: a short soak by default, so that every
// test run checks what it checks; -soak.requests=100000 is the full soak
// (issue 22: `go test ./internal/pipeline -run TestSoak -soak.requests=100000 -v`).
var soakRequests = flag.Int("soak.requests", 3000, "requests TestSoak sends (100000 for the full soak)")

// soakFaults are every fault the simulator injects, each hitting 5 % of
// the requests (the first that hits a request wins).
var soakFaults = []string{"500", "503", "429", "reset", "stall", "disconnect", "slow-headers",
	"sse-nospace", "sse-comments", "sse-crlf", "no-done", "bad-json", "huge", "split", "usage-in-last", "empty-final"}

// TestSoak runs requests against the built-in simulator with 5 % of every
// fault kind, with a records file, and checks that nothing is lost or
// leaked: every request is completed or failed, the records file holds a
// whole line for each, the goroutines and file descriptors are what they
// were before, and the heap, sampled through the run, stays flat.
func TestSoak(t *testing.T) {
	n := *soakRequests
	var faults []string
	for _, k := range soakFaults {
		spec := k + ":rate=0.05"
		if k == "slow-headers" {
			spec += ",delay=50ms"
		}
		faults = append(faults, strconv.Quote(spec))
	}
	dir := t.TempDir()
	load := func(n int, faults []string) *scenario.Scenario {
		sc, err := scenario.LoadBytes("soak.cue", []byte(`
target: {simulator: {ttft_ms: 1, itl_ms: 0.2, seed: 7, faults: [`+strings.Join(faults, ", ")+`]}, request_timeout: 1}
tokenizer: name: "o200k_base"
dataset: random: {input_len: 16, output_len: 16}
sampling: ignore_eos: true
load: {num_prompts: `+strconv.Itoa(n)+`, max_concurrency: 128}
output: {save_result: true, result_dir: "`+dir+`", result_filename: "soak.json", disable_tqdm: true, records: true, overwrite: true}
`), scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	// A short run first starts what lives as long as the process (the
	// simulator's stream loops, the tokenizer's tables): the baseline is
	// taken after it.
	env := Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }, Now: time.Now}
	if _, err := Run(context.Background(), load(50, nil), env); err != nil {
		t.Fatal(err)
	}
	sc := load(n, faults)
	runtime.GC()
	goroutines, fds := runGoroutines(), openFDs(t)

	var heap []uint64 // HeapAlloc after a GC, every 250 ms
	var mu sync.Mutex
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				mu.Lock()
				heap = append(heap, ms.HeapAlloc)
				mu.Unlock()
			}
		}
	}()
	var stderr bytes.Buffer
	env.Stderr = &stderr
	start := time.Now()
	out, err := Run(context.Background(), sc, env)
	took := time.Since(start)
	close(stop)
	<-sampled
	if out == nil {
		t.Fatalf("no outcome: %v\n%s", err, stderr.String())
	}
	sum := out.Summary
	if sum.Completed+sum.Failed != n || out.NotSent != 0 {
		t.Errorf("completed %d + failed %d = %d, not sent %d; want %d sent", sum.Completed, sum.Failed, sum.Completed+sum.Failed, out.NotSent, n)
	}
	// The records file: a header and a whole line per request.
	f, err := record.ReadFile(filepath.Join(dir, "soak.records.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Records) != n {
		t.Errorf("the records file holds %d records, want %d", len(f.Records), n)
	}
	// Every fault kind that fails a request failed some, and no request
	// failed otherwise.
	kinds := map[string]int{}
	var other string
	for _, r := range f.Records {
		if r.Error == "" {
			continue
		}
		k := failureKind(r.Error)
		kinds[k]++
		if k == "other" && other == "" {
			other = r.Error
		}
	}
	for _, k := range []string{"500", "503", "429", "reset", "stall", "disconnect", "bad-json"} {
		if kinds[k] == 0 {
			t.Errorf("no request failed with %s: %v", k, kinds)
		}
	}
	if kinds["other"] > 0 {
		t.Errorf("%d requests failed with an error no fault explains, the first: %q", kinds["other"], other)
	}

	// The simulator, the client and the run's goroutines are gone once
	// their connections have closed (which the kernel may finish a moment
	// after the run returns).
	var g, d int
	for range 200 {
		runtime.GC()
		if g, d = runGoroutines(), openFDs(t); g <= goroutines && d <= fds {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if g > goroutines || d > fds {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines %d → %d, file descriptors %d → %d\n%s", goroutines, g, fds, d, buf[:runtime.Stack(buf, true)])
	}
	// Flat heap: the median sample of the run's last third is at most 25 %
	// (and 8 MB) above the median of its middle third. Medians, because a
	// sample that lands while huge events are in flight holds a few
	// megabytes more for each; a leak moves every sample.
	mu.Lock()
	defer mu.Unlock()
	var mid, last uint64
	if len(heap) >= 9 {
		third := len(heap) / 3
		mid, last = median(heap[third:2*third]), median(heap[2*third:])
		if float64(last) > 1.25*float64(mid) && last-mid > 8<<20 {
			t.Errorf("the heap grew: median sample %.1f MB in the middle third, %.1f MB in the last (samples %v)", mb(mid), mb(last), heap)
		}
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %d", k, kinds[k]))
	}
	t.Logf("%d requests in %v: %d completed, %d failed (%s); goroutines %d → %d, fds %d → %d; heap (after GC) sampled %d times: median %.1f MB in the middle third of the run, %.1f MB in the last",
		n, took.Round(time.Millisecond), sum.Completed, sum.Failed, strings.Join(parts, ", "), goroutines, g, fds, d,
		len(heap), mb(mid), mb(last))
}

// median is the middle value of xs (the upper one of an even count).
func median(xs []uint64) uint64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// processWide are the goroutines that live as long as the process once
// started: the simulator's stream loops and its waker.
var processWide = regexp.MustCompile(`internal/sim\.\(\*(streamLoop|waker)\)\.run\(`)

// runGoroutines counts the goroutines but the process-wide ones.
func runGoroutines() int {
	buf := make([]byte, 1<<22)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if !processWide.MatchString(g) {
			n++
		}
	}
	return n
}

// failureKind names the fault behind a failed request's error text.
func failureKind(e string) string {
	for _, k := range []struct{ re, kind string }{
		{`^Internal Server Error: .*\(500:rate`, "500"},
		{`^Service Unavailable: .*\(503:rate`, "503"},
		{`^Too Many Requests: .*\(429:rate`, "429"},
		{`connection reset by peer`, "reset"},
		{`^request timed out`, "stall"},
		{`unexpected EOF`, "disconnect"},
		{`^invalid JSON in SSE message`, "bad-json"},
	} {
		if regexp.MustCompile(k.re).MatchString(e) {
			return k.kind
		}
	}
	return "other"
}

// openFDs counts the process's open file descriptors.
func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		if runtime.GOOS == "linux" { // every Linux has it: CI must not skip
			t.Fatalf("counting file descriptors: %v", err)
		}
		t.Skip("no /proc/self/fd to count file descriptors")
	}
	return len(ents)
}

func mb(b uint64) float64 { return float64(b) / 1e6 }
