package promscrape

import (
	"context"
	"errors"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func mustParse(t *testing.T, text string) *Snapshot {
	t.Helper()
	s, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseKinds(t *testing.T) {
	s := mustParse(t, readFile(t, "before.prom"))
	tests := []struct {
		name string
		kind Kind
		n    int
	}{
		{"vllm:num_requests_running", Gauge, 2},
		{"vllm:time_to_first_token_seconds", Histogram, 1},
		{"vllm:spec_decode_num_drafts_total", Counter, 2},
		{"vllm:spec_decode_num_accepted_tokens_per_pos_total", Counter, 6},
	}
	for _, tt := range tests {
		f := s.Family(tt.name, tt.kind)
		if f == nil {
			t.Errorf("%s: no %s family; have %v", tt.name, tt.kind, names(s))
			continue
		}
		if len(f.Series) != tt.n {
			t.Errorf("%s: %d series, want %d", tt.name, len(f.Series), tt.n)
		}
	}
	for name := range s.Families {
		if strings.HasSuffix(name, "_created") {
			t.Errorf("_created family %s kept", name)
		}
	}
	// The declared base names hold no samples and are gone.
	if f := s.Families["vllm:spec_decode_num_drafts"]; f != nil {
		t.Errorf("empty declared family kept: %+v", f)
	}
	h := s.Family("vllm:time_to_first_token_seconds", Histogram).Series[`engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"`].Histogram
	want := &HistogramValue{Count: 10, Sum: 0.4, Buckets: []Bucket{{0.01, 3}, {0.1, 9}, {math.Inf(1), 10}}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("histogram = %+v, want %+v", h, want)
	}
	if g := s.Family("vllm:num_requests_running", Gauge).Series[`engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"`]; g == nil || g.Value != 0 {
		t.Errorf("gauge engine 1 = %+v", g)
	}
}

func names(s *Snapshot) []string {
	var out []string
	for n, f := range s.Families {
		out = append(out, n+":"+f.Kind.String())
	}
	return out
}

func TestLabelKeyOrder(t *testing.T) {
	a := LabelKey(map[string]string{"engine": "0", "position": "1", "model_name": "m"})
	b := LabelKey(map[string]string{"position": "1", "model_name": "m", "engine": "0"})
	if a != b || a != `engine="0",model_name="m",position="1"` {
		t.Errorf("LabelKey = %q, %q", a, b)
	}
}

// TestSpecDecodeTwoEngines reads the realistic pair of scrapes: two
// engines, _created series, labels shuffled after the run, counters
// declared with and without _total. Expected values by hand:
// drafts (130−100)+(70−50) = 50, draft tokens (390−300)+(210−150) = 150,
// accepted (234−180)+(120−90) = 84; positions 27+18, 18+9, 9+3.
func TestSpecDecodeTwoEngines(t *testing.T) {
	before := mustParse(t, readFile(t, "before.prom"))
	after := mustParse(t, readFile(t, "after.prom"))
	got := SpecDecode(before, after)
	want := &SpecDecodeStats{
		AcceptanceRate: rate(84.0, 150), AcceptanceLength: alen(84.0, 50),
		NumDrafts: 50, DraftTokens: 150, AcceptedTokens: 84,
		PerPosition: []float64{45.0 / 50, 27.0 / 50, 12.0 / 50},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SpecDecode = %+v, want %+v", got, want)
	}
	// The same scrape read in the other direction: every counter went
	// down, so each counts as reset to 0 and its delta is the "before" file's value.
	back := SpecDecode(after, before)
	if back == nil || back.NumDrafts != 150 || back.DraftTokens != 450 || back.AcceptedTokens != 270 {
		t.Errorf("reset deltas = %+v, want drafts 150, draft tokens 450, accepted 270", back)
	}
}

const specTmpl = `# TYPE vllm:spec_decode_num_drafts counter
vllm:spec_decode_num_drafts_total{engine="0"} D0
vllm:spec_decode_num_drafts_created{engine="0"} 1.7e+09
vllm:spec_decode_num_drafts_total{engine="1"} D1
# TYPE vllm:spec_decode_num_draft_tokens counter
vllm:spec_decode_num_draft_tokens_total{engine="0"} T0
vllm:spec_decode_num_draft_tokens_total{engine="1"} T1
# TYPE vllm:spec_decode_num_accepted_tokens counter
vllm:spec_decode_num_accepted_tokens_total{engine="0"} A0
vllm:spec_decode_num_accepted_tokens_total{engine="1"} A1
`

// rate and alen compute as vLLM does, at run time: 100·(a/t) and 1 + a/d.
func rate(a, t float64) float64 { return a / t * 100 }
func alen(a, d float64) float64 { return 1 + a/d }

func spec(kv ...string) string { return strings.NewReplacer(kv...).Replace(specTmpl) }

func TestSpecDecodeCases(t *testing.T) {
	base := spec("D0", "10", "D1", "10", "T0", "30", "T1", "30", "A0", "15", "A1", "15")
	perPos := func(p0, p1 string) string {
		return "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos counter\n" +
			`vllm:spec_decode_num_accepted_tokens_per_pos_total{position="0",engine="0"} ` + p0 + "\n" +
			`vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="1"} ` + p1 + "\n"
	}
	perPos3 := func(p2 string) string {
		return `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="2"} ` + p2 + "\n"
	}
	tests := []struct {
		name          string
		before, after string
		want          *SpecDecodeStats
	}{
		{"no metrics at all", "", "", nil},
		{"before only", base, "", nil},
		{"after only", "", base, nil},
		{"other families only", "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n", base, nil},
		{"no draft tokens during the run", base, base, nil},
		{"plain", base, spec("D0", "14", "D1", "16", "T0", "42", "T1", "48", "A0", "20", "A1", "22"),
			&SpecDecodeStats{AcceptanceRate: rate(12.0, 30), AcceptanceLength: alen(12.0, 10), NumDrafts: 10, DraftTokens: 30, AcceptedTokens: 12, PerPosition: []float64{}}},
		{"engine 1 reset", base, spec("D0", "14", "D1", "2", "T0", "42", "T1", "6", "A0", "20", "A1", "1"),
			&SpecDecodeStats{AcceptanceRate: rate(6.0, 18), AcceptanceLength: alen(6.0, 6), NumDrafts: 6, DraftTokens: 18, AcceptedTokens: 6, PerPosition: []float64{}}},
		{"values truncated as vLLM does", base, spec("D0", "14.9", "D1", "10", "T0", "42.5", "T1", "30", "A0", "20.99", "A1", "15"),
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{}}},
		{"no drafts", base, spec("D0", "10", "D1", "10", "T0", "33", "T1", "30", "A0", "16", "A1", "15"),
			&SpecDecodeStats{AcceptanceRate: rate(1.0, 3), AcceptanceLength: 0, NumDrafts: 0, DraftTokens: 3, AcceptedTokens: 1}},
		{"per position", base + perPos("10", "4"), spec("D0", "14", "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15") + perPos("13", "5"),
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{3.0 / 4, 1.0 / 4}}},
		{"per-position family missing after", base + perPos("10", "4"), spec("D0", "14", "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15"),
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{0, 0}}},
		{"position only after", base, spec("D0", "14", "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15") + perPos("3", "2"),
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{3.0 / 4, 2.0 / 4}}},
		{"accepted family missing after", base, strings.Split(spec("D0", "14", "D1", "10", "T0", "42", "T1", "30"), "# TYPE vllm:spec_decode_num_accepted")[0],
			&SpecDecodeStats{AcceptanceRate: 0, AcceptanceLength: 1, NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 0, PerPosition: []float64{}}},
		{"a position label that is no integer is skipped", base + perPos("10", "4"),
			spec("D0", "14", "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15") + perPos("13", "5") +
				`vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",position="x"} 9` + "\n",
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{3.0 / 4, 1.0 / 4}}},
		// Issue 17.3: a NaN or infinite position keeps its slot: it counts
		// as absent from its scrape, as vLLM's reader skips a NaN line.
		{"a NaN position before keeps its slot", base + perPos("10", "NaN") + perPos3("2"),
			spec("D0", "14", "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15") + perPos("13", "3") + perPos3("3"),
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{3.0 / 4, 3.0 / 4, 1.0 / 4}}},
		{"an infinite position after keeps its slot", base + perPos("10", "4") + perPos3("2"),
			spec("D0", "14", "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15") + perPos("13", "+Inf") + perPos3("3"),
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{3.0 / 4, 0, 1.0 / 4}}},
		// The same series twice in one exposition (labels in another
		// order): summed, as vLLM's reader sums every line.
		{"the same series twice is summed", base,
			spec("D0", "14", "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15") +
				`vllm:spec_decode_num_drafts_total{engine="1"} 2` + "\n" +
				`vllm:spec_decode_num_accepted_tokens_total{engine="1"} 1` + "\n",
			&SpecDecodeStats{AcceptanceRate: rate(6.0, 12), AcceptanceLength: alen(6.0, 6), NumDrafts: 6, DraftTokens: 12, AcceptedTokens: 6, PerPosition: []float64{}}},
		// Expositions as real exporters break them: CRLF line ends, two
		// expositions one after the other, a malformed line elsewhere.
		{"CRLF line ends", strings.ReplaceAll(base, "\n", "\r\n"),
			strings.ReplaceAll(spec("D0", "14", "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15"), "\n", "\r\n"),
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{}}},
		{"two expositions concatenated", base,
			"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n" + spec("D0", "14", "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15") +
				"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_waiting 0\n",
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{}}},
		{"a malformed line in another family", base,
			"# TYPE other gauge\nother{a=\"1\" 5\n" + spec("D0", "14", "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15"),
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{}}},
		{"a family named like a spec counter but not one is not counted", base,
			spec("D0", "14", "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15") +
				"# TYPE vllm:spec_decode_num_drafts_extra counter\nvllm:spec_decode_num_drafts_extra_total 1000\n" +
				"# TYPE vllm:spec_decode_num_drafts_gauge gauge\nvllm:spec_decode_num_drafts_gauge 1000\n",
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{}}},
		{"label values naming other families change nothing", strings.ReplaceAll(base, `engine="0"} 10`, `engine="0",note="vllm:spec_decode_num_draft_tokens_total"} 10`),
			spec(`engine="0"} D0`, `engine="0",note="vllm:spec_decode_num_draft_tokens_total"} 14`, "D1", "10", "T0", "42", "T1", "30", "A0", "20", "A1", "15"),
			&SpecDecodeStats{AcceptanceRate: rate(5.0, 12), AcceptanceLength: alen(5.0, 4), NumDrafts: 4, DraftTokens: 12, AcceptedTokens: 5, PerPosition: []float64{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b, a *Snapshot
			if tt.before != "" {
				b = mustParse(t, tt.before)
			}
			if tt.after != "" {
				a = mustParse(t, tt.after)
			}
			got := SpecDecode(b, a)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SpecDecode = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDiffDelta(t *testing.T) {
	b := mustParse(t, "# TYPE c counter\nc_total{a=\"1\"} 5\nc_total{a=\"2\"} 7\nc_total{a=\"3\"} 2\n# TYPE g gauge\ng 3\n")
	a := mustParse(t, "# TYPE c counter\nc_total{a=\"1\"} 8\nc_total{a=\"2\"} 3\nc_total{a=\"4\"} 4\n# TYPE g gauge\ng 9\n")
	d := Diff(b, a)
	if _, ok := d["g"]; ok {
		t.Error("a gauge has deltas")
	}
	var got []float64
	for _, x := range d["c_total"] {
		got = append(got, x.Value())
	}
	// 8−5; reset to 3; gone after (unchanged); new (from 0).
	if want := []float64{3, 3, 0, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("deltas = %v, want %v", got, want)
	}
	if !d["c_total"][1].Reset() || d["c_total"][0].Reset() {
		t.Error("Reset wrong")
	}
	if s, ok := d.Sum("c_total"); !ok || s != 10 {
		t.Errorf("Sum = %v, %v", s, ok)
	}
	if _, ok := d.Sum("nope_total"); ok {
		t.Error("Sum of a missing family is ok")
	}
}

func TestDiffusion(t *testing.T) {
	tmpl := "# TYPE vllm:diffusion_num_denoising_steps counter\nvllm:diffusion_num_denoising_steps_total{engine=\"0\"} S\nvllm:diffusion_num_denoising_steps_created{engine=\"0\"} 1.7e9\n" +
		"# TYPE vllm:diffusion_num_canvas_positions counter\nvllm:diffusion_num_canvas_positions_total{engine=\"0\"} P\n" +
		"# TYPE vllm:diffusion_num_committed_tokens counter\nvllm:diffusion_num_committed_tokens_total{engine=\"0\"} C\n"
	mk := func(s, p, c string) *Snapshot {
		return mustParse(t, strings.NewReplacer("S", s, "P", p, "C", c).Replace(tmpl))
	}
	before := mk("100", "3200", "50")
	// Δsteps 40, Δpositions 1280 (block 32), Δcommitted 64: 2 canvases,
	// 38 denoising steps.
	got := Diffusion(before, mk("140", "4480", "114"), 2)
	want := &DiffusionStats{CommittedThroughput: 32, StepsPerCanvas: 19, CommittedPerStep: 64.0 / 38,
		CommittedTokens: 64, DenoisingSteps: 38, CanvasPositions: 1280}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diffusion = %+v, want %+v", got, want)
	}
	for _, tt := range []struct {
		name  string
		after *Snapshot
	}{
		{"no steps", mk("100", "4480", "114")},
		{"nothing committed", mk("140", "4480", "50")},
		{"no positions", mk("140", "3200", "114")},
		{"missing after", mustParse(t, "# TYPE x gauge\nx 1\n")},
	} {
		if got := Diffusion(before, tt.after, 2); got != nil {
			t.Errorf("%s: Diffusion = %+v, want nil", tt.name, got)
		}
	}
}

// TestParseSkips checks that a line Parse cannot read is named, with why,
// and the rest read.
func TestParseSkips(t *testing.T) {
	s := mustParse(t, "a 1\r\nb{x=\"1\" 2\nc\n# TYPE a gauge\n# TYPE a counter\nd 0x1p3\ne{x=\"sp ace\"} 3 1700000000000\n")
	want := []string{
		`line 2: labels: want , or } after a label: "b{x=\"1\" 2"`,
		`line 3: no value: "c"`,
		`line 5: a declared counter after gauge (the first holds): "# TYPE a counter"`,
		`line 6: value "0x1p3" is not a number: "d 0x1p3"`,
	}
	if !reflect.DeepEqual(s.Skipped, want) {
		t.Errorf("Skipped =\n%q\nwant\n%q", s.Skipped, want)
	}
	if s.Family("a", Gauge) == nil || s.Family("e", Gauge).Series[`x="sp ace"`].Value != 3 {
		t.Errorf("families %v", names(s))
	}
}

func TestParseErrors(t *testing.T) {
	for _, text := range []string{
		"<html><body>Not Found</body></html>",
		"vllm:x{engine=\"0\" 1\n",
		"# TYPE a counter\n# TYPE a gauge\n",
	} {
		if _, err := Parse(strings.NewReader(text)); err == nil {
			t.Errorf("Parse(%q) succeeded", text)
		}
	}
	if _, err := Parse(strings.NewReader(strings.Repeat("#", MaxBody+1))); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a huge body: %v", err)
	}
}

func TestScrape(t *testing.T) {
	body := readFile(t, "before.prom")
	var gotHeader http.Header
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		gotHeader = r.Header.Clone()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(body))
	})
	mux.HandleFunc("/garbage/metrics", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{\"detail\": 1}")) })
	// The slow handler answers only when the test is over. Answering when
	// its request's context ends (the client giving up) raced the
	// client's timeout: the transport could still take that empty 200 as
	// the response, and the scrape succeed.
	release := make(chan struct{})
	mux.HandleFunc("/slow/metrics", func(w http.ResponseWriter, r *http.Request) { <-release })
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted-certificate case's handshake error
	srv.StartTLS()
	defer srv.Close()
	defer close(release) // before srv.Close, which waits for the handlers
	tr := srv.Client().Transport

	snap, err := New(srv.URL+"/", tr, 0).Scrape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Family(FamSpecDrafts, Counter) == nil {
		t.Errorf("no %s", FamSpecDrafts)
	}
	for _, h := range []string{"Authorization", "X-Api-Key", "Accept"} {
		if gotHeader.Get(h) != "" {
			t.Errorf("the scrape sent %s: %q", h, gotHeader.Get(h))
		}
	}

	refused := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		return "http://" + addr
	}()
	for _, tt := range []struct {
		name, base string
		rt         http.RoundTripper
		timeout    time.Duration
	}{
		{"404", srv.URL + "/none", tr, 0},
		{"garbage", srv.URL + "/garbage", tr, 0},
		{"refused", refused, nil, 0},
		{"timeout", srv.URL + "/slow", tr, 50 * time.Millisecond},
		{"untrusted certificate", srv.URL, &http.Transport{}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.base, tt.rt, tt.timeout).Scrape(context.Background())
			if !errors.Is(err, ErrNotAvailable) {
				t.Errorf("Scrape = %v, want ErrNotAvailable", err)
			}
		})
	}
}

// FuzzParseInvariants checks what holds for any input Parse reads.
func FuzzParseInvariants(f *testing.F) {
	f.Add("")
	f.Add(specTmpl)
	f.Add("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_count 2\nh_sum 1.5\nh_created 1.7e9\n")
	f.Add("vllm:spec_decode_num_drafts_total{engine=\"0\",position=\"x\"} NaN\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(strings.NewReader(text))
		if err != nil {
			return
		}
		for name, fam := range s.Families {
			if strings.HasSuffix(name, "_created") {
				t.Fatalf("_created family %q kept", name)
			}
			if fam.Kind != Counter && fam.Kind != Gauge && fam.Kind != Histogram {
				t.Fatalf("family %q of kind %v", name, fam.Kind)
			}
		}
		// Neither computation may panic on any parsed input.
		_ = SpecDecode(s, s)
		_ = Diffusion(s, s, 1)
		_ = Diff(nil, s)
	})
}
