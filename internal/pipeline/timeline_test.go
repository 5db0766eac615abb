package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/scenario"
)

func TestTimelinePath(t *testing.T) {
	for in, want := range map[string]string{
		"out/r.json":                        "out/r.timeline.html",
		"openai-0.5qps-model-20260101.json": "openai-0.5qps-model-20260101.timeline.html",
		"r":                                 "r.timeline.html",
		"dir.v2/r":                          "dir.v2/r.timeline.html",
		".hidden":                           ".hidden.timeline.html",
		"a.b.c":                             "a.b.timeline.html",
		"trailing.":                         "trailing..timeline.html",
	} {
		if got := timelinePath(in); got != want {
			t.Errorf("timelinePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// The run's records and its sampled server gauges reach the page; the
// console says where it is. A page that cannot be written is a warning.
func TestWriteTimeline(t *testing.T) {
	dir := t.TempDir()
	sc := scenario.Default()
	sc.Output.PlotTimeline = true
	sc.Output.TimelineITLThresholds = []float64{5, 10}
	out := &Outcome{
		Records: []*record.Record{
			{Index: 0, Released: time.Millisecond, Start: 2 * time.Millisecond, Chunks: []time.Duration{20 * time.Millisecond, 23 * time.Millisecond, 40 * time.Millisecond}, End: 40 * time.Millisecond, Success: true},
			{Index: 1, Released: 5 * time.Millisecond, Start: 5 * time.Millisecond, Error: "boom"},
			{Index: 2, Released: 6 * time.Millisecond, NotSent: true},
		},
		ServerSamples: []promscrape.ServerSample{{At: 10 * time.Millisecond, KVCacheUsage: 0.25, Running: 2, Waiting: -1}},
	}
	var stdout, stderr bytes.Buffer
	env := Env{Stdout: &stdout, Stderr: &stderr}
	result := filepath.Join(dir, "r.json")
	writeTimeline(sc, result, true, out, env)
	page, err := os.ReadFile(filepath.Join(dir, "r.timeline.html"))
	if err != nil {
		t.Fatalf("%v (stderr %q)", err, stderr.String())
	}
	if got, want := stdout.String(), "Timeline plot saved to: "+filepath.Join(dir, "r.timeline.html")+"\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	for _, want := range []string{`"title":"r.json","thr":[5,10]`, `"r":[[0,1000,2000,20000,40000,0,0,-1,1,0,1,0,3000,2,17000],[1,5000,5000,-1,-1,0,0,0,0,0,0]]`, `"errors":["boom"]`, `"s":[[10000,0.25,2,-1]]`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %s", want)
		}
	}

	// Off: nothing. Unwritable: a warning, and the run goes on.
	stdout.Reset()
	sc.Output.PlotTimeline = false
	writeTimeline(sc, filepath.Join(dir, "off.json"), false, out, env)
	if _, err := os.Stat(filepath.Join(dir, "off.timeline.html")); err == nil || stdout.Len() > 0 {
		t.Errorf("plot_timeline false wrote a page (stdout %q)", stdout.String())
	}
	sc.Output.PlotTimeline = true
	writeTimeline(sc, filepath.Join(dir, "missing", "r.json"), true, out, env)
	if !strings.Contains(stderr.String(), "warning: failed to generate timeline plot: ") {
		t.Errorf("stderr %q, want the warning", stderr.String())
	}
	stderr.Reset()
	writeTimeline(sc, result, true, &Outcome{Records: out.Records[2:]}, env)
	if got := stderr.String(); got != "warning: no timeline plot: no request was sent\n" {
		t.Errorf("stderr %q", got)
	}

	// Without a saved result, a computed name's timeline is never
	// replaced; an explicit name's is, as its result would be.
	stdout.Reset()
	writeTimeline(sc, result, false, out, env)
	writeTimeline(sc, result, false, out, env)
	if got, want := stdout.String(), "Timeline plot saved to: "+filepath.Join(dir, "r-2.timeline.html")+"\nTimeline plot saved to: "+filepath.Join(dir, "r-3.timeline.html")+"\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	stdout.Reset()
	sc.Output.ResultFilename = "r.json"
	writeTimeline(sc, result, false, out, env)
	if got, want := stdout.String(), "Timeline plot saved to: "+filepath.Join(dir, "r.timeline.html")+"\n"; got != want {
		t.Errorf("explicit name: stdout %q, want %q", got, want)
	}
}

// With both plots, vLLM writes the timeline first and then the dataset
// statistics figure, each saying so on stdout in that order.
func TestPlotsInVLLMOrder(t *testing.T) {
	out, stdout, err := runScenario(t, base+`output: {plot_timeline: true, plot_dataset_stats: true}`)
	if err != nil {
		t.Fatal(err)
	}
	tl := strings.Index(stdout, "Timeline plot saved to: ")
	ds := strings.Index(stdout, "Dataset statistics plot saved to: ")
	if tl < 0 || ds < 0 || tl > ds {
		t.Errorf("timeline line at %d, dataset statistics line at %d; want both, the timeline first:\n%s", tl, ds, stdout)
	}
	if out.ResultPath == "" {
		t.Error("no result")
	}
}
