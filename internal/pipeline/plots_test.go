package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/scenario"
)

// Without a saved result, a computed name's timeline is numbered so as not
// to replace an earlier page; the dataset statistics figure follows it,
// instead of replacing the earlier figure under the plain name. The
// timeline comes first, as in vLLM.
func TestWritePlotsShareTheTimelinesName(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "r.json")
	for _, f := range []string{"r.timeline.html", "r.dataset_stats.png"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("earlier"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc := scenario.Default()
	sc.Output.PlotTimeline, sc.Output.PlotDatasetStats = true, true
	sc.Output.TimelineITLThresholds = []float64{25, 50}
	out := &Outcome{Records: []*record.Record{{Index: 0, Released: time.Millisecond, Start: time.Millisecond,
		Chunks: []time.Duration{5 * time.Millisecond}, End: 5 * time.Millisecond, Success: true}}}
	sum := &metrics.Summary{InputLens: []int{4}, OutputLens: []int{1}}
	var stdout, stderr bytes.Buffer
	writePlots(sc, "", name, sum, out, Env{Stdout: &stdout, Stderr: &stderr})
	want := "Timeline plot saved to: " + filepath.Join(dir, "r-2.timeline.html") + "\n" +
		"Dataset statistics plot saved to: " + filepath.Join(dir, "r-2.dataset_stats.png") + "\n"
	if got := stdout.String(); got != want {
		t.Errorf("stdout %q, want %q (stderr %q)", got, want, stderr.String())
	}
	for _, f := range []string{"r.timeline.html", "r.dataset_stats.png"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(b) != "earlier" {
			t.Errorf("%s was replaced (%d bytes, %v)", f, len(b), err)
		}
	}

	// A saved result names both plots, whatever exists.
	stdout.Reset()
	saved := filepath.Join(dir, "s.json")
	writePlots(sc, saved, name, sum, out, Env{Stdout: &stdout, Stderr: &stderr})
	want = "Timeline plot saved to: " + filepath.Join(dir, "s.timeline.html") + "\n" +
		"Dataset statistics plot saved to: " + filepath.Join(dir, "s.dataset_stats.png") + "\n"
	if got := stdout.String(); got != want {
		t.Errorf("saved: stdout %q, want %q", got, want)
	}
}
