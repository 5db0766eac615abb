package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/hostmem"
	"github.com/vbench/vbench/internal/scenario"
)

func TestCheckMemory(t *testing.T) {
	saved := availableMemory
	t.Cleanup(func() { availableMemory = saved })
	availableMemory = func() (uint64, string, bool) { return 1 << 30, "MemAvailable in /proc/meminfo", true }

	sc := scenario.Default()
	sc.Dataset.Random.InputLen, sc.Dataset.Random.OutputLen = 1024, 128
	est, _ := estimateMemory(sc)
	// 1024 prompt tokens and 128 output tokens: tens of KiB per request.
	if est.perRequest < 32<<10 || est.perRequest > 128<<10 {
		t.Errorf("estimate %s per request for 1024+128 tokens, want 32 to 128 KiB", hostmem.FormatBytes(est.perRequest))
	}

	sc.Load.NumPrompts = 1000 // ~50 MiB: fits in 1 GiB
	if err := CheckRun(sc); err != nil {
		t.Errorf("1000 requests: %v", err)
	}
	sc.Load.NumPrompts = 1000000000000
	err := CheckRun(sc)
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("1e12 requests: err = %v, want ErrUnsupported", err)
	}
	for _, want := range []string{"load.num_prompts 1000000000000: the prepared requests need about ", " PiB (", "more than the 1.0 GiB available (MemAvailable in /proc/meminfo)"} {
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
