package experiment

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/report"
)

// update rewrites the testdata files this package's own code writes
// (aa-even.json, aa-odd.json). vLLM's files are never rewritten.
var update = flag.Bool("update", false, "rewrite the testdata files written by vbench's code")

// splitHalves splits vLLM's random-detailed.json (50 requests of one run)
// into the results of its even and of its odd requests, each summarised by
// the metrics package as vLLM would: two samples of the same workload from
// the same server at the same time, an A/A pair by construction.
func splitHalves(t *testing.T) (even, odd []byte) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "random-detailed.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := report.DecodePython(f)
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*report.Object)
	ttfts, starts := floatArray(o, "ttfts"), floatArray(o, "start_times")
	inLens, outLens := intArray(o, "input_lens"), intArray(o, "output_lens")
	itlsAny, _ := o.Get("itls")
	textsAny, _ := o.Get("generated_texts")
	halves := [2][]metrics.Outcome{}
	for i := range ttfts {
		var itls []float64
		for _, x := range itlsAny.([]any)[i].([]any) {
			itls = append(itls, x.(float64))
		}
		lat := ttfts[i]
		for _, x := range itls {
			lat += x
		}
		halves[i%2] = append(halves[i%2], metrics.Outcome{Success: true, PromptLen: inLens[i], OutputTokens: outLens[i],
			GeneratedText: textsAny.([]any)[i].(string), TTFT: ttfts[i], Latency: lat, ITLs: itls, StartTime: starts[i]})
	}
	duration, _ := number(o, "duration")
	var out [2][]byte
	for h, outs := range halves {
		sum := metrics.ComputeOutcomes(outs, duration, metrics.Options{
			PercentileMetrics: []string{"ttft", "tpot", "itl", "e2el"}, Percentiles: []float64{99},
			CountTokens: func(string) int { panic("every request has its output length") },
		})
		b, err := report.MarshalResult(report.ResultInput{Date: "20261202-085539", Backend: "openai", ModelID: "stories260K",
			TokenizerID: "http://127.0.0.1:42123", NumPrompts: len(outs), RequestRate: math.Inf(1), Burstiness: 1,
			Summary: sum, SaveDetailed: true})
		if err != nil {
			t.Fatal(err)
		}
		out[h] = b
	}
	return out[0], out[1]
}

// TestAAFixtures keeps the A/A pair reproducible from vLLM's file.
func TestAAFixtures(t *testing.T) {
	even, odd := splitHalves(t)
	for name, got := range map[string][]byte{"aa-even.json": even, "aa-odd.json": odd} {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what splitting random-detailed.json gives (go test -update rewrites it)", name)
		}
	}
}

// An A/A comparison: the even and the odd requests of one run differ only
// by chance, and the comparison says so for every metric it can test.
func TestCompareAA(t *testing.T) {
	even, odd := filepath.Join("testdata", "aa-even.json"), filepath.Join("testdata", "aa-odd.json")
	sum, err := CompareFiles([]string{even, odd}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, c := range sum.Comparisons {
		switch c.Verdict {
		case report.VerdictSame:
			tested++
		case report.VerdictUntested:
			if c.Method != "" || strings.HasPrefix(c.Metric, "mean_") {
				t.Errorf("%s untested: %+v", c.Metric, c)
			}
		default:
			t.Errorf("A/A comparison of %s: %s (%+v)", c.Metric, c.Verdict, c)
		}
	}
	// The means and medians of TTFT, TPOT, ITL and E2EL, and the P99 of
	// the ITLs (about 800 values); the throughputs and the other P99s (25
	// values) have no interval.
	if tested != 9 {
		t.Errorf("%d comparisons tested, want 9: %+v", tested, sum.Comparisons)
	}
}
