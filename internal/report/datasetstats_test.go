package report

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"slices"
	"strconv"
	"testing"
)

// NewHistogram counts as numpy.histogram does (testdata/gen_histogram.py),
// float edges and all.
func TestNewHistogramMatchesNumpy(t *testing.T) {
	b, err := os.ReadFile("testdata/histogram_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []struct {
			Name   string
			Bins   int
			X      []float64
			Counts []int
			Lo, Hi float64
		}
	}
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) < 20 {
		t.Fatalf("%d cases", len(golden.Cases))
	}
	for _, c := range golden.Cases {
		h := NewHistogram(c.X, c.Bins)
		if !slices.Equal(h.Counts, c.Counts) || h.Lo != c.Lo || h.Hi != c.Hi {
			t.Errorf("%s, %d bins: %v [%v, %v], want numpy's %v [%v, %v]", c.Name, c.Bins, h.Counts, h.Lo, h.Hi, c.Counts, c.Lo, c.Hi)
		}
	}
	if h := NewHistogram(nil, 30); len(h.Counts) != 30 || slices.Max(h.Counts) != 0 {
		t.Errorf("no values: %+v", h)
	}
}

func TestDatasetStatsPath(t *testing.T) {
	for in, want := range map[string]string{
		"openai-infqps-m-20260101-000000.json": "openai-infqps-m-20260101-000000.dataset_stats.png",
		"out/r.json":                           "out/r.dataset_stats.png",
		"out/r":                                "out/r.dataset_stats.png",
		"a.b/r.v1.json":                        "a.b/r.v1.dataset_stats.png",
		"a.b/r":                                "a.b/r.dataset_stats.png",
		"out/.hidden":                          "out/.hidden.dataset_stats.png",
		"out/r.":                               "out/r..dataset_stats.png",
	} {
		if got := DatasetStatsPath(in); got != want {
			t.Errorf("DatasetStatsPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// The figure decodes as a 1400×1000 PNG with vLLM's four panels: each
// histogram's bars in its colour in its own quarter, and the stacked bars
// of both colours in the last one, each request's prompt bar under its
// output bar.
func TestDatasetStatsPNG(t *testing.T) {
	prompt := []int{100, 120, 120, 400, 130}
	output := []int{50, 10, 90, 60, 0}
	data, err := DatasetStatsPNG(prompt, output)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1400 || b.Dy() != 1000 {
		t.Fatalf("size %v, want 1400x1000", b)
	}
	count := func(r image.Rectangle, c color.RGBA) int {
		n := 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if color.RGBAModel.Convert(img.At(x, y)) == c {
					n++
				}
			}
		}
		return n
	}
	quarters := []image.Rectangle{image.Rect(0, 0, 700, 500), image.Rect(700, 0, 1400, 500), image.Rect(0, 500, 700, 1000), image.Rect(700, 500, 1400, 1000)}
	for i, want := range []struct{ prompt, output, total bool }{{true, false, false}, {false, true, false}, {false, false, true}, {true, true, false}} {
		q := quarters[i]
		for _, c := range []struct {
			name string
			fill color.RGBA
			want bool
		}{{"prompt", statsPrompt, want.prompt}, {"output", statsOutput, want.output}, {"total", statsTotal, want.total}} {
			if n := count(q, c.fill); (n > 1000) != c.want {
				t.Errorf("panel %d: %d pixels of the %s colour, want them drawn: %v", i, n, c.name, c.want)
			}
		}
	}
	// The prompt histogram: the bin of 400 (the last) holds one request of
	// five, the first bin (100) one, 120 two: the tallest bar is twice the
	// first's height.
	area := image.Rect(statsPanelLeft, statsPanelTop, 700-statsPanelRight, 500-statsPanelBottom)
	height := func(x int) int {
		n := 0
		for y := area.Min.Y; y < area.Max.Y; y++ {
			if color.RGBAModel.Convert(img.At(x, y)) == statsPrompt {
				n++
			}
		}
		return n
	}
	h := NewHistogram([]float64{100, 120, 120, 400, 130}, statsBins)
	if !slices.Equal(h.Counts[:3], []int{1, 0, 2}) || h.Counts[29] != 1 {
		t.Fatalf("histogram %v", h.Counts)
	}
	margin := 0.05 * (h.Hi - h.Lo)
	binX := func(k int) int {
		mid := h.Lo + (float64(k)+0.5)*(h.Hi-h.Lo)/statsBins
		return area.Min.X + int((mid-h.Lo+margin)/(h.Hi-h.Lo+2*margin)*float64(area.Dx()))
	}
	first, second, third := height(binX(0)), height(binX(1)), height(binX(2))
	if first == 0 || second != 0 || third < 2*first-3 || third > 2*first+3 {
		t.Errorf("bar heights %d, %d, %d: want h, 0, 2h", first, second, third)
	}
	for _, bad := range [][2][]int{{nil, nil}, {{1}, {1, 2}}} {
		if _, err := DatasetStatsPNG(bad[0], bad[1]); err == nil {
			t.Errorf("DatasetStatsPNG(%v, %v) did not fail", bad[0], bad[1])
		}
	}
}

// The figure is drawn after the run, off the request path; this measures
// what it adds to the end of a large run.
func BenchmarkDatasetStatsPNG(b *testing.B) {
	for _, n := range []int{1000, 100000, 1000000} {
		prompt, output := make([]int, n), make([]int, n)
		for i := range n {
			prompt[i], output[i] = 100+(i*7919)%4000, 1+(i*104729)%1000
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := DatasetStatsPNG(prompt, output); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
