package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/record"
)

const ms = time.Millisecond

// fakeRecords returns n records of a run at 50 req/s with a concurrency
// limit of conc (so with a small one later requests queue), each with
// outputs tokens whose gaps vary between 5 and 80 ms; every seventh
// request fails (every fourteenth after its first token).
func fakeRecords(n, outputs, conc int, seed uint64) []*record.Record {
	rng := rand.New(rand.NewPCG(seed, 1))
	recs := make([]*record.Record, n)
	free := make([]time.Duration, conc)
	for i := range recs {
		rel := time.Duration(i) * 20 * ms
		slot := 0
		for j := range free {
			if free[j] < free[slot] {
				slot = j
			}
		}
		start := max(rel, free[slot])
		r := &record.Record{Index: i, Intended: rel, Released: rel, Start: start, PromptLen: 100 + i, OutputTokens: outputs, Success: true}
		t := start + time.Duration(20+rng.IntN(60))*ms
		for k := 0; k < outputs; k++ {
			r.Chunks = append(r.Chunks, t)
			t += time.Duration(5+rng.IntN(75)) * ms
		}
		r.End = r.Chunks[len(r.Chunks)-1]
		switch {
		case i%14 == 13:
			r.Success, r.Error, r.Chunks, r.End = false, "server closed the connection to http://127.0.0.1:1/v1 after the first token", r.Chunks[:1], r.Chunks[0]
		case i%7 == 6:
			r.Success, r.Error, r.Chunks, r.End = false, "Internal Server Error", nil, 0
		}
		free[slot] = max(r.End, start+ms)
		recs[i] = r
	}
	return recs
}

// fakeSamples are gauge samples every 100 ms over d, KV usage rising to
// 90 %, with waiting absent in the first second.
func fakeSamples(d time.Duration) []promscrape.ServerSample {
	var out []promscrape.ServerSample
	for t := time.Duration(0); t <= d; t += 100 * ms {
		s := promscrape.ServerSample{At: t, KVCacheUsage: 0.9 * float64(t) / float64(d), Running: float64(t / (300 * ms) % 9), Waiting: float64(t / (500 * ms) % 5)}
		if t < time.Second {
			s.Waiting = -1
		}
		out = append(out, s)
	}
	return out
}

// pageData extracts the JSON document from a rendered page.
func pageData(t *testing.T, html []byte) *page {
	t.Helper()
	before, after, ok := bytes.Cut(html, []byte(`<script type="application/json" id="timeline-data">`))
	if !ok {
		t.Fatal("no data script in the page")
	}
	_ = before
	data, _, ok := bytes.Cut(after, []byte("</script>"))
	if !ok {
		t.Fatal("data script not closed")
	}
	var p page
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatalf("data: %v", err)
	}
	return &p
}

func TestRenderBarsAndThresholds(t *testing.T) {
	recs := fakeRecords(40, 12, 8, 1)
	recs = append(recs, &record.Record{Index: 40, Released: 900 * ms, NotSent: true})
	html, err := render(Input{Title: "run.json", Records: recs, Thresholds: [2]float64{25, 50}})
	if err != nil {
		t.Fatal(err)
	}
	p := pageData(t, html)
	if len(p.R) != 40 {
		t.Fatalf("%d bars, want one per sent request (40)", len(p.R))
	}
	if p.Cell != 0 {
		t.Errorf("cell = %d, want exact runs for a small run", p.Cell)
	}
	if want := [3]string{"ITL < 25ms", "25ms ≤ ITL < 50ms", "ITL ≥ 50ms"}; p.Labels != want {
		t.Errorf("labels = %q, want %q", p.Labels, want)
	}
	for k, row := range p.R {
		r := recs[k]
		if row[0] != int64(r.Index) || row[1] != r.Released.Microseconds() || row[2] != r.Start.Microseconds() {
			t.Fatalf("bar %d: index/released/start = %v", k, row[:3])
		}
		// Replay the runs: they cover first token → last chunk exactly, and
		// each run's class is the class of every ITL in it.
		var fast, mid, slow int64
		for _, itl := range r.ITLs() {
			switch v := itl * 1000; {
			case v < 25:
				fast++
			case v < 50:
				mid++
			default:
				slow++
			}
		}
		if row[8] != fast || row[9] != mid || row[10] != slow {
			t.Errorf("bar %d: ITL counts %v, want %d %d %d", k, row[8:11], fast, mid, slow)
		}
		if !r.Success {
			if p.Errors[row[7]] != r.Error {
				t.Errorf("bar %d: error %q, want %q", k, p.Errors[row[7]], r.Error)
			}
		} else if row[7] != -1 {
			t.Errorf("bar %d: error index %d on a success", k, row[7])
		}
		if len(r.Chunks) < 2 {
			if len(row) != 11 {
				t.Errorf("bar %d: runs %v without ITLs", k, row[11:])
			}
			continue
		}
		at, ci := r.Chunks[0].Microseconds(), 1
		for j := 11; j < len(row); j += 2 {
			cls, end := row[j], at+row[j+1]
			for ci < len(r.Chunks) && r.Chunks[ci].Microseconds() <= end {
				itl := float64(r.Chunks[ci]-r.Chunks[ci-1]) / float64(ms)
				want := int64(2)
				if itl < 25 {
					want = 0
				} else if itl < 50 {
					want = 1
				}
				if want != cls {
					t.Fatalf("bar %d: ITL %.1f ms drawn as class %d", k, itl, cls)
				}
				ci++
			}
			if j+2 < len(row) && row[j+2] == cls {
				t.Errorf("bar %d: two consecutive runs of class %d", k, cls)
			}
			at = end
		}
		if at != r.Chunks[len(r.Chunks)-1].Microseconds() || ci != len(r.Chunks) {
			t.Errorf("bar %d: runs end at %d µs after %d chunks, want %d after %d", k, at, ci, r.Chunks[len(r.Chunks)-1].Microseconds(), len(r.Chunks))
		}
	}
	// Other thresholds classify differently.
	html2, err := render(Input{Records: recs, Thresholds: [2]float64{10, 70}})
	if err != nil {
		t.Fatal(err)
	}
	p2 := pageData(t, html2)
	if p2.Labels[1] != "10ms ≤ ITL < 70ms" || p2.R[0][9] <= p.R[0][9] {
		t.Errorf("thresholds 10,70: labels %q, middle count %d (25,50 gave %d)", p2.Labels, p2.R[0][9], p.R[0][9])
	}
}

// The page reaches nothing outside itself: no URL, no external script,
// style or image, even when an error text names a URL.
func TestRenderSelfContained(t *testing.T) {
	recs := fakeRecords(30, 5, 8, 2)
	html, err := render(Input{Title: "http://x/</script>.json", Records: recs, Samples: fakeSamples(time.Second), Thresholds: [2]float64{25, 50}})
	if err != nil {
		t.Fatal(err)
	}
	s := string(html)
	for _, bad := range []string{"http://", "https://", "//cdn", " src=", "href=", "@import", "url("} {
		if strings.Contains(s, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	if n := strings.Count(s, "</script>"); n != 3 {
		t.Errorf("%d </script> tags, want 3 (the title must not close the data)", n)
	}
	p := pageData(t, html)
	if p.Title != "http://x/</script>.json" || !strings.Contains(strings.Join(p.Errors, "\n"), "http://127.0.0.1:1/v1") {
		t.Errorf("title %q, errors %q: the texts must survive the escaping", p.Title, p.Errors)
	}
	if len(p.S) != 11 || p.S[0][3] != -1 || p.S[10][3] < 0 || p.S[10][1] != 0.9 {
		t.Errorf("samples %v", p.S)
	}
}

// A long run at high concurrency merges decode runs into cells so that
// the page stays small, and says so.
func TestRenderLargeRunBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("large render")
	}
	recs := fakeRecords(10000, 128, 256, 3)
	html, err := render(Input{Records: recs, Samples: fakeSamples(200 * time.Second), Thresholds: [2]float64{25, 50}})
	if err != nil {
		t.Fatal(err)
	}
	p := pageData(t, html)
	runs := 0
	for _, row := range p.R {
		runs += (len(row) - 11) / 2
	}
	t.Logf("10000 requests × 128 tokens: %d bytes, %d decode runs, cell %d µs", len(html), runs, p.Cell)
	if len(p.R) != 10000 || p.Cell == 0 || runs > maxRuns+len(p.R) {
		t.Errorf("%d bars, cell %d, %d runs (at most %d)", len(p.R), p.Cell, runs, maxRuns+len(p.R))
	}
	if len(html) > 12<<20 {
		t.Errorf("the page is %d bytes", len(html))
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.timeline.html")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, Input{Records: fakeRecords(3, 2, 8, 4), Thresholds: [2]float64{25, 50}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) {
		t.Fatalf("read %q: %v", b[:min(len(b), 20)], err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files, want the page alone", len(entries))
	}
	err = Write(filepath.Join(dir, "none.html"), Input{Records: []*record.Record{{NotSent: true}}, Thresholds: [2]float64{25, 50}})
	if !errors.Is(err, ErrNoRequests) {
		t.Errorf("no request sent: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.html")); err == nil {
		t.Error("a page was written without requests")
	}
}

func TestLabels(t *testing.T) {
	got := labels([2]float64{2.5, 100})
	if want := [3]string{"ITL < 2.5ms", "2.5ms ≤ ITL < 100ms", "ITL ≥ 100ms"}; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// BenchmarkRender is the cost of a 10,000-request page (128 tokens each,
// random latency classes), paid once after the run.
func BenchmarkRender(b *testing.B) {
	recs := fakeRecords(10000, 128, 256, 8)
	in := Input{Records: recs, Samples: fakeSamples(200 * time.Second), Thresholds: [2]float64{25, 50}}
	b.ReportAllocs()
	var size int
	for b.Loop() {
		html, err := render(in)
		if err != nil {
			b.Fatal(err)
		}
		size = len(html)
	}
	b.ReportMetric(float64(size), "bytes/page")
}
