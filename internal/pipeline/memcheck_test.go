package pipeline

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/scenario"
)

// TestEstimateMemoryMeasured checks the memory model against the peaks
// measured with vbench serve against vbench sim (see memcheck.go): each
// estimate is within 25 % of its measurement.
func TestEstimateMemoryMeasured(t *testing.T) {
	conc := 64
	// The files measured, as sparse files of their sizes.
	dir := t.TempDir()
	share := filepath.Join(dir, "sharegpt.json")
	qa := filepath.Join(dir, "qa")
	if err := os.Mkdir(qa, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, size := range map[string]int64{share: 51502722, filepath.Join(qa, "train.jsonl"): 28000845} {
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
	}
	sharegpt := scenario.Dataset{Name: "sharegpt", Spec: &dataset.ShareGPTSpec{FileOptions: dataset.FileOptions{Path: share}}}
	hf := scenario.Dataset{Name: "hf", Spec: &dataset.HFSpec{FileOptions: dataset.FileOptions{Path: qa}, Split: "train"}}
	for _, tc := range []struct {
		name     string
		set      func(*scenario.Scenario)
		ds       scenario.Dataset // when set is nil
		n        int
		measured float64 // MB of peak RSS
	}{
		{"random 8/4", func(sc *scenario.Scenario) {
			sc.Dataset.Spec.(*dataset.RandomSpec).InputLen, sc.Dataset.Spec.(*dataset.RandomSpec).OutputLen = 8, 4
		}, scenario.Dataset{}, 2000, 56.5},
		{"random 8/4", func(sc *scenario.Scenario) {
			sc.Dataset.Spec.(*dataset.RandomSpec).InputLen, sc.Dataset.Spec.(*dataset.RandomSpec).OutputLen = 8, 4
		}, scenario.Dataset{}, 20000, 79.5},
		{"random 8/4", func(sc *scenario.Scenario) {
			sc.Dataset.Spec.(*dataset.RandomSpec).InputLen, sc.Dataset.Spec.(*dataset.RandomSpec).OutputLen = 8, 4
		}, scenario.Dataset{}, 100000, 106.7},
		{"random 8/4", func(sc *scenario.Scenario) {
			sc.Dataset.Spec.(*dataset.RandomSpec).InputLen, sc.Dataset.Spec.(*dataset.RandomSpec).OutputLen = 8, 4
		}, scenario.Dataset{}, 1000000, 111.5},
		{"random 128/1024", func(sc *scenario.Scenario) {
			sc.Dataset.Spec.(*dataset.RandomSpec).InputLen, sc.Dataset.Spec.(*dataset.RandomSpec).OutputLen = 128, 1024
		}, scenario.Dataset{}, 2000, 81.5},
		{"random 128/1024", func(sc *scenario.Scenario) {
			sc.Dataset.Spec.(*dataset.RandomSpec).InputLen, sc.Dataset.Spec.(*dataset.RandomSpec).OutputLen = 128, 1024
		}, scenario.Dataset{}, 8000, 107.5},
		{"sharegpt 51.5 MB", nil, sharegpt, 2000, 199.6},
		{"sharegpt 51.5 MB", nil, sharegpt, 10000, 227.5},
		{"sharegpt 51.5 MB", nil, sharegpt, 20000, 280.6},
		{"hf 28 MB", nil, hf, 2000, 64.2},
		{"hf 28 MB", nil, hf, 10000, 88.9},
		{"hf 28 MB", nil, hf, 20000, 110.8},
	} {
		sc := scenario.Default()
		if tc.set != nil {
			tc.set(sc)
		} else {
			sc.Dataset = tc.ds
		}
		sc.Load.NumPrompts, sc.Load.MaxConcurrency = tc.n, &conc
		est := estimateMemory(sc).bytes / 1e6
		t.Logf("%s, %d requests: estimate %.1f MB, measured %.1f MB (%+.0f %%)", tc.name, tc.n, est, tc.measured, 100*(est/tc.measured-1))
		if r := est / tc.measured; math.Abs(r-1) > 0.25 {
			t.Errorf("%s, %d requests: estimate %.1f MB, measured %.1f MB (%.0f %%)", tc.name, tc.n, est, tc.measured, 100*(r-1))
		}
	}
}

func TestCheckMemory(t *testing.T) {
	saved := availableMemory
	t.Cleanup(func() { availableMemory = saved })
	availableMemory = func() (uint64, string, bool) { return 1 << 30, "MemAvailable in /proc/meminfo", true }

	sc := scenario.Default()
	sc.Dataset.Spec.(*dataset.RandomSpec).InputLen, sc.Dataset.Spec.(*dataset.RandomSpec).OutputLen = 1024, 128
	sc.Load.NumPrompts = 1000 // tens of MiB: fits in 1 GiB
	if err := CheckRun(sc); err != nil {
		t.Errorf("1000 requests: %v", err)
	}
	// A streamed run under a concurrency limit is flat: a billion fit.
	conc := 8
	sc.Load.NumPrompts, sc.Load.MaxConcurrency = 100000000, &conc
	if err := CheckRun(sc); err != nil {
		t.Errorf("1e8 requests at concurrency 8: %v", err)
	}
	// Without a limit, every request is in flight at once.
	sc.Load.NumPrompts, sc.Load.MaxConcurrency = 1000000000000, nil
	err := CheckRun(sc)
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("1e12 requests: err = %v, want ErrUnsupported", err)
	}
	for _, want := range []string{"load.num_prompts 1000000000000: a run of dataset random needs about ", " PiB (16.0 KiB per request)",
		"more than the 1.0 GiB available (MemAvailable in /proc/meminfo); lower load.num_prompts or set load.max_concurrency"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}

	// Where memory cannot be read, nothing is refused.
	availableMemory = func() (uint64, string, bool) { return 0, "", false }
	if err := CheckRun(sc); err != nil {
		t.Errorf("no memory information: %v", err)
	}
}
