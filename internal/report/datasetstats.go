package report

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"slices"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Histogram is the counts of values in equal-width bins from Lo to Hi, as
// numpy.histogram(x, bins) counts them (and matplotlib's hist, which
// calls it): each bin holds the values from its left edge up to, not
// including, its right edge, the last bin its right edge too; values that
// are all equal, v, span [v-0.5, v+0.5].
type Histogram struct {
	// Counts has one count per bin, in order.
	Counts []int
	// Lo and Hi are the first and the last bin edges.
	Lo, Hi float64
}

// NewHistogram counts x (in any order, finite values) in bins bins between
// its smallest and largest value. An empty x gives empty counts.
func NewHistogram(x []float64, bins int) Histogram {
	h := Histogram{Counts: make([]int, bins)}
	if len(x) == 0 || bins <= 0 {
		return h
	}
	h.Lo, h.Hi = slices.Min(x), slices.Max(x)
	if h.Lo == h.Hi {
		h.Lo, h.Hi = h.Lo-0.5, h.Hi+0.5
	}
	// numpy's _search_sorted_inclusive shortcut for equal bins: the bin
	// from the scaled offset, then corrected against the edges numpy
	// computes with linspace.
	// The edges are numpy.linspace(Lo, Hi, bins+1): k·step + Lo, the last
	// one Hi itself.
	step := (h.Hi - h.Lo) / float64(bins)
	edge := func(k int) float64 {
		if k == bins {
			return h.Hi
		}
		return float64(k)*step + h.Lo
	}
	for _, v := range x {
		k := int((v - h.Lo) / (h.Hi - h.Lo) * float64(bins))
		if k >= bins {
			k = bins - 1
		}
		if k > 0 && v < edge(k) {
			k--
		} else if k < bins-1 && v >= edge(k+1) {
			k++
		}
		h.Counts[k]++
	}
	return h
}

// DatasetStatsPath is the plot vLLM's --plot-dataset-stats writes next to
// the result file result: WithSuffix(result, ".dataset_stats.png").
func DatasetStatsPath(result string) string { return WithSuffix(result, ".dataset_stats.png") }

// WithSuffix is path with its file name's extension replaced by suffix,
// as Python's Path.with_suffix replaces it, which is how vLLM names its
// plots after the result (x.json → x<suffix>; a name without an
// extension, or one whose only dot leads or ends it, gets suffix
// appended).
func WithSuffix(path, suffix string) string {
	start := strings.LastIndexByte(path, '/') + 1
	name := path[start:]
	if i := strings.LastIndexByte(name, '.'); i > 0 && i < len(name)-1 {
		return path[:start+i] + suffix
	}
	return path + suffix
}

// The dataset statistics figure, in pixels.
const (
	statsWidth, statsHeight = 1400, 1000
	statsPanelLeft          = 90 // room for the y tick labels and axis title
	statsPanelRight         = 24 // room between panels
	statsPanelTop           = 44 // room for the panel title
	statsPanelBottom        = 64 // room for the x tick labels and axis title
	statsBins               = 30 // matplotlib's hist(bins=30) in vLLM's plot
	statsTextScale          = 2  // the 7x13 font, doubled
	statsTickScale          = 1  // tick labels at the font's own size
)

// The colours of vLLM's plot: matplotlib's steelblue, coral and
// mediumseagreen at alpha 0.7 on white, edges black at alpha 0.7, the grid
// at alpha 0.3.
var (
	statsPrompt = blendWhite(70, 130, 180)
	statsOutput = blendWhite(255, 127, 80)
	statsTotal  = blendWhite(60, 179, 113)
	statsEdge   = blendWhite(0, 0, 0)
	statsGrid   = color.RGBA{0xe6, 0xe6, 0xe6, 0xff}
	statsInk    = color.RGBA{0x22, 0x22, 0x22, 0xff}
)

func blendWhite(r, g, b uint8) color.RGBA {
	f := func(c uint8) uint8 { return uint8(math.Round(0.7*float64(c) + 0.3*255)) }
	return color.RGBA{f(r), f(g), f(b), 0xff}
}

// DatasetStatsPNG draws vLLM's dataset statistics figure
// (vllm/benchmarks/plot.py's generate_dataset_stats_plot) from each
// request's prompt and output lengths, in request order, as a PNG: four
// panels, the histograms (30 bins) of the prompt, the output and the total
// (prompt + output) tokens, and each request's prompt and output tokens as
// a stacked bar. Labels are drawn with the fixed 7x13 font. It fails on
// lengths of different counts or none.
func DatasetStatsPNG(prompt, output []int) ([]byte, error) {
	switch {
	case len(prompt) != len(output):
		return nil, fmt.Errorf("%d prompt lengths but %d output lengths", len(prompt), len(output))
	case len(prompt) == 0:
		return nil, errors.New("no requests to plot")
	}
	in, out, total := make([]float64, len(prompt)), make([]float64, len(prompt)), make([]float64, len(prompt))
	for i := range prompt {
		in[i], out[i], total[i] = float64(prompt[i]), float64(output[i]), float64(prompt[i]+output[i])
	}
	img := image.NewRGBA(image.Rect(0, 0, statsWidth, statsHeight))
	fill(img, img.Bounds(), color.RGBA{0xff, 0xff, 0xff, 0xff})
	cellW, cellH := statsWidth/2, statsHeight/2
	cell := func(col, row int) image.Rectangle {
		return image.Rect(col*cellW+statsPanelLeft, row*cellH+statsPanelTop, (col+1)*cellW-statsPanelRight, (row+1)*cellH-statsPanelBottom)
	}
	for _, p := range []struct {
		x      []float64
		fill   color.RGBA
		title  string
		xLabel string
		area   image.Rectangle
	}{
		{in, statsPrompt, "Prompt Tokens Distribution", "Prompt Tokens", cell(0, 0)},
		{out, statsOutput, "Output Tokens Distribution", "Output Tokens", cell(1, 0)},
		{total, statsTotal, "Total Tokens Distribution", "Total Tokens (Prompt + Output)", cell(0, 1)},
	} {
		drawHistogram(img, p.area, NewHistogram(p.x, statsBins), p.fill)
		labelPanel(img, p.area, p.title, p.xLabel, "Frequency")
	}
	area := cell(1, 1)
	drawStacked(img, area, prompt, output)
	labelPanel(img, area, "Tokens per Request (Stacked)", "Request ID", "Tokens")
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// drawHistogram draws h's bars in area with their axes, ticks and grid.
func drawHistogram(img *image.RGBA, area image.Rectangle, h Histogram, face color.RGBA) {
	step, top := niceAxis(headroom * float64(slices.Max(h.Counts)))
	xStep, _ := niceAxis(h.Hi - h.Lo)
	// matplotlib's 5% margins on either side.
	margin := 0.05 * (h.Hi - h.Lo)
	lo, hi := h.Lo-margin, h.Hi+margin
	px := func(v float64) int {
		return area.Min.X + int(math.Round((v-lo)/(hi-lo)*float64(area.Dx())))
	}
	py := func(v float64) int { return area.Max.Y - int(math.Round(v/top*float64(area.Dy()))) }
	drawAxes(img, area, step, top, py, xTicks(h.Lo, h.Hi, xStep), px)
	bins := len(h.Counts)
	for k, c := range h.Counts {
		if c == 0 {
			continue
		}
		x0 := px(h.Lo + float64(k)*(h.Hi-h.Lo)/float64(bins))
		x1 := px(h.Lo + float64(k+1)*(h.Hi-h.Lo)/float64(bins))
		bar := image.Rect(x0, py(float64(c)), x1+1, area.Max.Y+1)
		fill(img, bar, face)
		outline(img, bar, statsEdge)
	}
}

// drawStacked draws each request's prompt tokens as a bar and its output
// tokens on top of it, requests left to right in order.
func drawStacked(img *image.RGBA, area image.Rectangle, prompt, output []int) {
	peak := 0
	for i := range prompt {
		peak = max(peak, prompt[i]+output[i])
	}
	n := len(prompt)
	step, top := niceAxis(headroom * float64(peak))
	// matplotlib's bar(range(n)) spans -0.4 to n-0.6, with 5% margins.
	dataLo, dataHi := -0.4, float64(n)-0.6
	margin := 0.05 * (dataHi - dataLo)
	lo, hi := dataLo-margin, dataHi+margin
	px := func(v float64) int { return area.Min.X + int(math.Round((v-lo)/(hi-lo)*float64(area.Dx()))) }
	py := func(v float64) int { return area.Max.Y - int(math.Round(v/top*float64(area.Dy()))) }
	xStep, _ := niceAxis(float64(n))
	drawAxes(img, area, step, top, py, xTicks(0, float64(n-1), xStep), px)
	for i := range prompt {
		x0, x1 := px(float64(i)-0.4), px(float64(i)+0.4)
		if x1 <= x0 {
			x1 = x0 + 1
		}
		base, mid, end := area.Max.Y+1, py(float64(prompt[i])), py(float64(prompt[i]+output[i]))
		fill(img, image.Rect(x0, mid, x1, base), statsPrompt)
		fill(img, image.Rect(x0, end, x1, mid), statsOutput)
	}
	// The legend, top right.
	lx, ly := area.Max.X-150, area.Min.Y+10
	for _, e := range []struct {
		fill color.RGBA
		text string
	}{{statsPrompt, "Prompt Tokens"}, {statsOutput, "Output Tokens"}} {
		fill(img, image.Rect(lx, ly, lx+20, ly+12), e.fill)
		drawText(img, lx+28, ly+11, e.text, statsTickScale, alignLeft)
		ly += 20
	}
}

// headroom leaves room above the highest bar, as matplotlib's 5% margin
// does.
const headroom = 1.05

// xTicks are the multiples of step from lo to hi.
func xTicks(lo, hi, step float64) []float64 {
	var ticks []float64
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		ticks = append(ticks, k*step+0) // +0 turns -0 into 0
	}
	return ticks
}

// drawAxes draws area's frame, the horizontal grid at each y step up to
// top with its labels, and the x ticks with theirs.
func drawAxes(img *image.RGBA, area image.Rectangle, step, top float64, py func(float64) int, xs []float64, px func(float64) int) {
	for v := 0.0; v <= top+step*1e-9; v += step {
		y := py(v)
		hline(img, area.Min.X, area.Max.X, y, statsGrid)
		drawText(img, area.Min.X-6, y+5, tickLabel(v, step), statsTickScale, alignRight)
	}
	for _, v := range xs {
		x := px(v)
		if x < area.Min.X || x > area.Max.X {
			continue
		}
		vline(img, x, area.Max.Y, area.Max.Y+5, statsInk)
		drawText(img, x, area.Max.Y+19, tickLabel(v, xsStep(xs)), statsTickScale, alignCenter)
	}
	outline(img, area, statsInk)
}

// xsStep is the spacing of the ticks xs (1 for a single tick).
func xsStep(xs []float64) float64 {
	if len(xs) < 2 {
		return 1
	}
	return xs[1] - xs[0]
}

// labelPanel writes a panel's title above it, its x axis title below and
// its y axis title, turned, on its left.
func labelPanel(img *image.RGBA, area image.Rectangle, title, xLabel, yLabel string) {
	cx := (area.Min.X + area.Max.X) / 2
	drawText(img, cx, area.Min.Y-12, title, statsTextScale, alignCenter)
	drawText(img, cx, area.Max.Y+52, xLabel, statsTextScale, alignCenter)
	drawTextUp(img, area.Min.X-58, (area.Min.Y+area.Max.Y)/2, yLabel, statsTextScale)
}

func hline(img *image.RGBA, x0, x1, y int, c color.RGBA) {
	for x := x0; x <= x1; x++ {
		img.SetRGBA(x, y, c)
	}
}

func vline(img *image.RGBA, x, y0, y1 int, c color.RGBA) {
	for y := y0; y <= y1; y++ {
		img.SetRGBA(x, y, c)
	}
}

// outline draws r's border, one pixel wide, inside r's last row and column.
func outline(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	hline(img, r.Min.X, r.Max.X-1, r.Min.Y, c)
	hline(img, r.Min.X, r.Max.X-1, r.Max.Y-1, c)
	vline(img, r.Min.X, r.Min.Y, r.Max.Y-1, c)
	vline(img, r.Max.X-1, r.Min.Y, r.Max.Y-1, c)
}

type textAlign int

const (
	alignLeft textAlign = iota
	alignCenter
	alignRight
)

// textFace is the labels' font, and textAscent its height above the
// baseline.
var (
	textFace   = basicfont.Face7x13
	textAscent = textFace.Metrics().Ascent.Ceil()
)

// textMask renders s with textFace at its own size: a mask of the text's
// pixels, its baseline textAscent pixels from its top.
func textMask(s string) *image.Alpha {
	w := font.MeasureString(textFace, s).Ceil()
	mask := image.NewAlpha(image.Rect(0, 0, max(w, 1), textFace.Metrics().Height.Ceil()))
	d := font.Drawer{Dst: mask, Src: image.Opaque, Face: textFace, Dot: fixed.P(0, textAscent)}
	d.DrawString(s)
	return mask
}

// fill paints r with c.
func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

// drawText writes s with its baseline at y, scaled, aligned on x.
func drawText(img *image.RGBA, x, y int, s string, scale int, align textAlign) {
	mask := textMask(s)
	w := mask.Bounds().Dx() * scale
	switch align {
	case alignCenter:
		x -= w / 2
	case alignRight:
		x -= w
	}
	top := y - textAscent*scale
	b := mask.Bounds()
	for my := b.Min.Y; my < b.Max.Y; my++ {
		for mx := b.Min.X; mx < b.Max.X; mx++ {
			if mask.AlphaAt(mx, my).A >= 0x80 {
				fill(img, image.Rect(x+mx*scale, top+my*scale, x+(mx+1)*scale, top+(my+1)*scale), statsInk)
			}
		}
	}
}

// drawTextUp writes s turned a quarter left (read bottom to top),
// centred on (x, y), scaled.
func drawTextUp(img *image.RGBA, x, y int, s string, scale int) {
	mask := textMask(s)
	b := mask.Bounds()
	left, bottom := x-b.Dy()*scale/2, y+b.Dx()*scale/2
	for my := b.Min.Y; my < b.Max.Y; my++ {
		for mx := b.Min.X; mx < b.Max.X; mx++ {
			if mask.AlphaAt(mx, my).A < 0x80 {
				continue
			}
			// (mx, my) → column my, row counted up from the bottom by mx.
			px, py := left+my*scale, bottom-(mx+1)*scale
			fill(img, image.Rect(px, py, px+scale, py+scale), statsInk)
		}
	}
}
