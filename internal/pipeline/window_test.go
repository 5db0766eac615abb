package pipeline

import (
	"runtime"
	"testing"

	"github.com/vbench/vbench/internal/backend"
)

// The dataset makes its requests on every core before the clock starts
// and while the window runs low, and on one core otherwise.
func TestDatasetWorkers(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	pr := &preparedRun{window: &window{ch: make(chan *backend.Prepared, windowSize)}}
	if got := pr.datasetWorkers(); got != cores {
		t.Errorf("before the clock: %d workers, want %d", got, cores)
	}
	pr.clockStarted.Store(true)
	for _, tc := range []struct {
		ready, want int
	}{{0, cores}, {windowSize/4 - 1, cores}, {windowSize / 4, 1}, {windowSize, 1}} {
		for len(pr.window.ch) < tc.ready {
			pr.window.ch <- &backend.Prepared{}
		}
		if got := pr.datasetWorkers(); got != tc.want {
			t.Errorf("running, %d payloads ready: %d workers, want %d", tc.ready, got, tc.want)
		}
	}
}
