package timeline

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The page is checked in a real browser: Debian's chromium, headless. CI
// installs it and sets VBENCH_REQUIRE_CHROMIUM=1, so that there a missing
// browser fails the test instead of skipping it. VBENCH_CHROMIUM names
// another binary.

// chromiumPath returns the browser to test with, or skips (fails when
// VBENCH_REQUIRE_CHROMIUM is set).
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("VBENCH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("VBENCH_REQUIRE_CHROMIUM") != "" {
		t.Fatal("chromium is not installed, and VBENCH_REQUIRE_CHROMIUM is set (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium; VBENCH_REQUIRE_CHROMIUM=1 makes this a failure)")
	return ""
}

// browse runs headless chromium on the page at path with the extra flags,
// and returns its stdout and stderr. Chromium gets no network to talk to
// (the page has no URL; the background-networking flags keep the browser's
// own calls home off) and a fresh profile.
func browse(t *testing.T, path, fragment string, flags ...string) (stdout, stderr string) {
	t.Helper()
	bin := chromiumPath(t)
	// A guard against a browser that never exits, not a timing assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append(append(headlessFlags(t), "--enable-logging=stderr", "--v=0"), flags...)
	args = append(args, "file://"+path+fragment)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, errb.String())
	}
	return out.String(), errb.String()
}

// headlessFlags are the flags every browser run starts with: headless,
// as root in a container, with a fresh profile and none of the browser's
// own network calls (the machine's network is closed).
func headlessFlags(t *testing.T) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
}

// bodyAttrs returns the data-* attributes of the dumped page's <body>.
func bodyAttrs(t *testing.T, dom string) map[string]string {
	t.Helper()
	m := regexp.MustCompile(`<body([^>]*)>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no <body> in the dumped DOM:\n%.2000s", dom)
	}
	attrs := map[string]string{}
	for _, a := range regexp.MustCompile(`(data-[a-z-]+)="([^"]*)"`).FindAllStringSubmatch(m[1], -1) {
		attrs[a[1]] = a[2]
	}
	return attrs
}

// consoleLines are the page's console messages in chromium's log (the
// page itself logs nothing, so any is an error or a warning).
func consoleLines(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, ":CONSOLE") || strings.Contains(line, "Uncaught") {
			out = append(out, line)
		}
	}
	return out
}

// renderTo writes the page for in into a temporary directory.
func renderTo(t *testing.T, in Input) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.timeline.html")
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkDOM loads the page, and checks that its script ran to the end
// without an error or a console message and drew one bar per request and
// the samples.
func checkDOM(t *testing.T, path, fragment string, bars, samples int) {
	t.Helper()
	dom, stderr := browse(t, path, fragment, "--dump-dom")
	attrs := bodyAttrs(t, dom)
	want := map[string]string{"data-rendered": "1", "data-errors": "0", "data-bars": fmt.Sprint(bars), "data-samples": fmt.Sprint(samples)}
	for k, v := range want {
		if attrs[k] != v {
			t.Errorf("<body %s=%q>, want %q (attributes %v)", k, attrs[k], v, attrs)
		}
	}
	if lines := consoleLines(stderr); len(lines) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(lines, "\n"))
	}
	hidden := strings.Contains(dom, `<section id="gauges-section" hidden="">`)
	if hidden != (samples == 0) {
		t.Errorf("gauge panel hidden = %v with %d samples", hidden, samples)
	}
}

// screenshot loads the page in a window of w×h and returns the decoded PNG.
func screenshot(t *testing.T, path string, w, h int) image.Image {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "shot.png")
	browse(t, path, "", "--screenshot="+shot, fmt.Sprintf("--window-size=%d,%d", w, h), "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot is %v, want %dx%d", b, w, h)
	}
	if os.Getenv("VBENCH_KEEP_SCREENSHOT") != "" {
		data, _ := os.ReadFile(shot)
		_ = os.WriteFile(os.Getenv("VBENCH_KEEP_SCREENSHOT"), data, 0o644)
	}
	return img
}

// countColors counts the pixels of img that have each of the colours
// (#RRGGBB) exactly.
func countColors(img image.Image, hexes ...string) map[string]int {
	want := map[color.RGBA]string{}
	for _, h := range hexes {
		var r, g, b uint8
		fmt.Sscanf(h, "#%02x%02x%02x", &r, &g, &b)
		want[color.RGBA{r, g, b, 255}] = h
	}
	got := map[string]int{}
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if h, ok := want[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}]; ok {
				got[h]++
			}
		}
	}
	return got
}

func TestChromiumRendersTimeline(t *testing.T) {
	recs := fakeRecords(60, 16, 8, 5)
	end := time.Duration(0)
	for _, r := range recs {
		end = max(end, r.End)
	}
	path := renderTo(t, Input{Title: "openai-50.0qps-sim-20260101-000000.json", Records: recs, Samples: fakeSamples(end), Thresholds: [2]float64{25, 50}})
	checkDOM(t, path, "", 60, len(fakeSamples(end)))

	// Zoomed in (the address keeps the view) the page draws the bars
	// that overlap the view.
	from, to := 300*time.Millisecond, 700*time.Millisecond
	inView := 0
	for _, r := range recs {
		last := r.Start
		if len(r.Chunks) > 0 {
			last = r.Chunks[0]
		}
		if r.End > 0 {
			last = r.End
		}
		if last >= from && min(r.Released, r.Start) <= to {
			inView++
		}
	}
	if inView == 0 || inView >= len(recs) {
		t.Fatalf("%d of %d bars in the view: the test's data is wrong", inView, len(recs))
	}
	checkDOM(t, path, "#view=0.3,0.7", inView, len(fakeSamples(end)))

	img := screenshot(t, path, 1280, 1400)
	// Every part of the drawing is there: queue, prefill, the three ITL
	// classes, failures, and the KV-usage and queue-depth lines.
	got := countColors(img, "#B8B8B8", "#636EFA", "#109618", "#FF7F0E", "#D62728", "#222222", "#9467BD", "#17BECF", "#E377C2")
	for _, h := range []string{"#B8B8B8", "#636EFA", "#109618", "#FF7F0E", "#D62728", "#222222"} {
		if got[h] < 50 {
			t.Errorf("%d pixels of %s in the screenshot, want a bar's worth (counts %v)", got[h], h, got)
		}
	}
	for _, h := range []string{"#9467BD", "#17BECF", "#E377C2"} {
		if got[h] < 20 {
			t.Errorf("%d pixels of %s (a gauge line) in the screenshot (counts %v)", got[h], h, got)
		}
	}
}

// Without server samples there is no gauge panel.
func TestChromiumWithoutSamples(t *testing.T) {
	path := renderTo(t, Input{Records: fakeRecords(25, 8, 8, 6), Thresholds: [2]float64{25, 50}})
	checkDOM(t, path, "", 25, 0)
	img := screenshot(t, path, 1000, 700)
	got := countColors(img, "#109618", "#9467BD")
	if got["#109618"] < 50 || got["#9467BD"] != 0 {
		t.Errorf("pixels: %v, want fast ITLs and no KV-usage line", got)
	}
}

// A server that exposes no KV-cache gauge gets no KV line, and the legend
// says so; the queue-depth lines are still drawn.
func TestChromiumGaugeNotExposed(t *testing.T) {
	samples := fakeSamples(2 * time.Second)
	for i := range samples {
		samples[i].KVCacheUsage = -1
	}
	path := renderTo(t, Input{Records: fakeRecords(20, 8, 8, 10), Samples: samples, Thresholds: [2]float64{25, 50}})
	dom, _ := browse(t, path, "", "--dump-dom")
	if !strings.Contains(dom, "KV-cache usage (left axis): not exposed") || strings.Contains(dom, "running requests (right axis): not exposed") {
		t.Errorf("gauge legend wrong in:\n%.3000s", dom[strings.Index(dom, "gauges-legend"):])
	}
	got := countColors(screenshot(t, path, 1000, 1000), "#9467BD", "#17BECF")
	if got["#17BECF"] < 20 || got["#9467BD"] > 14*10 {
		t.Errorf("pixels %v: want the running line and no KV line (its legend swatch is 14×10)", got)
	}
}

// A run of 10,000 requests renders in full: one bar each.
func TestChromiumLargeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("large render")
	}
	recs := fakeRecords(10000, 64, 256, 7)
	path := renderTo(t, Input{Records: recs, Samples: fakeSamples(250 * time.Second), Thresholds: [2]float64{25, 50}})
	checkDOM(t, path, "", 10000, len(fakeSamples(250*time.Second)))
	got := countColors(screenshot(t, path, 1280, 1000), "#B8B8B8", "#109618", "#FF7F0E", "#D62728")
	for h, n := range got {
		if n < 50 {
			t.Errorf("%d pixels of %s (counts %v)", n, h, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("colours seen: %v", got)
	}
}
