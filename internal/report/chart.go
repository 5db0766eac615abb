package report

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/metrics"
)

// Chart geometry, in SVG user units.
const (
	chartWidth  = 760
	chartHeight = 440
	chartLeft   = 70  // room for the y tick labels and title
	chartRight  = 170 // room for the legend
	chartTop    = 40
	chartBottom = 50
)

// chartColors are the line colours, one per variant, in order.
var chartColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}

// ChartX is the x axis of every chart: output throughput.
const ChartX = metrics.KeyOutputThroughput

// ChartMetrics picks the latencies charted against throughput, among the
// keys present: the highest TTFT percentile (else the mean TTFT), the mean
// TPOT, and the highest E2EL percentile (else the mean E2EL).
func ChartMetrics(keys []string) []string {
	has := map[string]bool{}
	for _, k := range keys {
		has[k] = true
	}
	var out []string
	pick := func(metric string, tail bool) {
		if tail {
			if k := highestPercentile(keys, metric); k != "" {
				out = append(out, k)
				return
			}
		}
		if k := metrics.StatKey(metrics.StatMean, metric); has[k] {
			out = append(out, k)
		}
	}
	pick(metrics.TTFT, true)
	pick(metrics.TPOT, false)
	pick(metrics.E2EL, true)
	return out
}

// chartSeries is one line of a chart: a variant's rows in sweep order.
type chartSeries struct {
	name   string
	points []chartPoint
}

type chartPoint struct {
	label         string // the sweep point, shown next to the marker
	x, y          float64
	xLow, xHigh   float64 // confidence intervals (NaN when none)
	yLow, yHigh   float64
	tooltipPrefix string
}

// series groups the rows by variant, in order of first appearance.
func (s *ExperimentSummary) series(yKey string) []chartSeries {
	var out []chartSeries
	index := map[string]int{}
	for _, r := range s.Rows {
		xs, okx := r.Stats[ChartX]
		ys, oky := r.Stats[yKey]
		if !okx || !oky || math.IsNaN(xs.Mean) || math.IsNaN(ys.Mean) {
			continue
		}
		i, ok := index[r.Variant]
		if !ok {
			i = len(out)
			index[r.Variant] = i
			name := r.Variant
			if name == "" {
				name = s.Name
			}
			if name == "" {
				name = "results"
			}
			out = append(out, chartSeries{name: name})
		}
		label := r.Point
		if len(r.Values) == 1 {
			label = r.Values[0]
		}
		prefix := strings.TrimSpace(strings.Join([]string{r.Variant, r.Point}, " "))
		out[i].points = append(out[i].points, chartPoint{label: label, x: xs.Mean, y: ys.Mean,
			xLow: xs.CILow, xHigh: xs.CIHigh, yLow: ys.CILow, yHigh: ys.CIHigh, tooltipPrefix: prefix})
	}
	return out
}

// niceAxis returns a tick step and the axis top for data up to hi: the
// step is 1, 2 or 5 times a power of ten giving about five ticks, and the
// top is the first multiple of the step at or above hi.
func niceAxis(hi float64) (step, top float64) {
	if !(hi > 0) || math.IsInf(hi, 0) {
		hi = 1
	}
	raw := hi / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	top = math.Ceil(hi/step-1e-9) * step
	return step, top
}

// tickLabel formats a tick value with as many decimals as the step needs.
func tickLabel(v, step float64) string {
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

func svgNum(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// ChartSVG draws output throughput (x, tok/s) against a latency metric
// (y, ms) as a self-contained SVG document: one line per variant through
// its rows in sweep order, each marker labelled with its sweep point and
// carrying a tooltip, the confidence intervals as error bars when the rows
// have several runs, and both axes starting at 0. It returns "" when no
// row has both values. The axes reach the largest mean and the end of
// every (finite) confidence interval, so no error bar is cut off.
func ChartSVG(s *ExperimentSummary, yKey string) string {
	ser := s.series(yKey)
	if len(ser) == 0 {
		return ""
	}
	// The axes reach the largest mean and every interval's end.
	xmax, ymax := 0.0, 0.0
	for _, sr := range ser {
		for _, p := range sr.points {
			xmax = math.Max(xmax, math.Max(p.x, finiteOr(p.xHigh, p.x)))
			ymax = math.Max(ymax, math.Max(p.y, finiteOr(p.yHigh, p.y)))
		}
	}
	// 5 % headroom keeps markers off the frame.
	esc := html.EscapeString
	title := MetricTitle(yKey) + " vs " + MetricTitle(ChartX)
	var b strings.Builder
	px, py, pw, ph := chartFrame(&b, title, xmax, ymax)
	clip := "plot-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, yKey)
	fmt.Fprintf(&b, `<clipPath id="%s"><rect x="%d" y="%d" width="%s" height="%s"/></clipPath>`+"\n", clip, chartLeft, chartTop, svgNum(pw), svgNum(ph))
	fmt.Fprintf(&b, `<text x="%s" y="%d" text-anchor="middle">%s</text>`+"\n", svgNum(chartLeft+pw/2), chartHeight-10, esc(MetricTitle(ChartX)))
	fmt.Fprintf(&b, `<text transform="translate(16 %s) rotate(-90)" text-anchor="middle">%s</text>`+"\n", svgNum(chartTop+ph/2), esc(MetricTitle(yKey)))
	// One line per variant.
	for i, sr := range ser {
		color := chartColors[i%len(chartColors)]
		var pts []string
		for _, p := range sr.points {
			pts = append(pts, svgNum(px(p.x))+","+svgNum(py(p.y)))
		}
		fmt.Fprintf(&b, `<g class="series" data-variant="%s">`+"\n", esc(sr.name))
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", color, strings.Join(pts, " "))
		}
		for _, p := range sr.points {
			x, y := px(p.x), py(p.y)
			if !math.IsNaN(p.yLow) && p.yHigh > p.yLow {
				fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" clip-path="url(#%s)"/>`+"\n",
					svgNum(x), svgNum(py(p.yLow)), svgNum(x), svgNum(py(p.yHigh)), color, clip)
			}
			if !math.IsNaN(p.xLow) && p.xHigh > p.xLow {
				fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" clip-path="url(#%s)"/>`+"\n",
					svgNum(px(p.xLow)), svgNum(y), svgNum(px(p.xHigh)), svgNum(y), color, clip)
			}
			tip := fmt.Sprintf("%s: %s tok/s, %s ms", p.tooltipPrefix, strconv.FormatFloat(p.x, 'f', 2, 64), strconv.FormatFloat(p.y, 'f', 2, 64))
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="4" fill="%s"><title>%s</title></circle>`+"\n", svgNum(x), svgNum(y), color, esc(strings.TrimPrefix(tip, ": ")))
			if p.label != "" {
				fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="10" fill="%s">%s</text>`+"\n", svgNum(x+6), svgNum(y-6), color, esc(p.label))
			}
		}
		b.WriteString("</g>\n")
		ly := chartTop + 10 + 20*i
		lx := chartWidth - chartRight + 20
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`+"\n", lx, ly, lx+20, ly, color)
		fmt.Fprintf(&b, `<text x="%d" y="%d" dominant-baseline="middle">%s</text>`+"\n", lx+26, ly, esc(sr.name))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// ParetoSVG draws the rows' output tokens/s per GPU (y) against output
// tokens/s per user (x), as vLLM's plot_pareto does: every row as a grey
// marker, the frontier as a line through its points (labelled with their
// rows), both axes from 0. It returns "" without Pareto points.
func ParetoSVG(s *ExperimentSummary) string {
	if len(s.Pareto) == 0 {
		return ""
	}
	xmax, ymax := 0.0, 0.0
	for _, p := range s.Pareto {
		xmax, ymax = math.Max(xmax, p.PerUser), math.Max(ymax, p.PerGPU)
	}
	esc := html.EscapeString
	const title, xTitle, yTitle = "Pareto frontier", "Output tokens/s per user", "Output tokens/s per GPU"
	var b strings.Builder
	px, py, pw, ph := chartFrame(&b, title, xmax, ymax)
	fmt.Fprintf(&b, `<text x="%s" y="%d" text-anchor="middle">%s</text>`+"\n", svgNum(chartLeft+pw/2), chartHeight-10, xTitle)
	fmt.Fprintf(&b, `<text transform="translate(16 %s) rotate(-90)" text-anchor="middle">%s</text>`+"\n", svgNum(chartTop+ph/2), yTitle)
	var front []ParetoPoint
	for _, p := range s.Pareto {
		if p.Frontier {
			front = append(front, p)
		}
	}
	slices.SortStableFunc(front, func(a, c ParetoPoint) int { return cmp.Compare(a.PerUser, c.PerUser) })
	if len(front) > 1 {
		var pts []string
		for _, p := range front {
			pts = append(pts, svgNum(px(p.PerUser))+","+svgNum(py(p.PerGPU)))
		}
		fmt.Fprintf(&b, `<polyline class="frontier" fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", chartColors[0], strings.Join(pts, " "))
	}
	for _, p := range s.Pareto {
		color := "#999999"
		if p.Frontier {
			color = chartColors[0]
		}
		tip := fmt.Sprintf("%s: %s tok/s per user, %s tok/s per GPU", p.Label, strconv.FormatFloat(p.PerUser, 'f', 2, 64), strconv.FormatFloat(p.PerGPU, 'f', 2, 64))
		fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="4" fill="%s"><title>%s</title></circle>`+"\n", svgNum(px(p.PerUser)), svgNum(py(p.PerGPU)), color, esc(strings.TrimPrefix(tip, ": ")))
		if p.Frontier && p.Label != "" {
			fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="10" fill="%s">%s</text>`+"\n", svgNum(px(p.PerUser)+6), svgNum(py(p.PerGPU)-6), color, esc(p.Label))
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// chartFrame starts a chart's SVG document in b: its title, the grid and
// ticks of axes from 0 to just above xmax and ymax (5 % headroom keeps
// markers off the frame), and the plot frame. It returns the data-to-SVG
// coordinate maps and the plot's width and height.
func chartFrame(b *strings.Builder, title string, xmax, ymax float64) (px, py func(float64) float64, pw, ph float64) {
	xstep, xtop := niceAxis(1.05 * xmax)
	ystep, ytop := niceAxis(1.05 * ymax)
	pw = float64(chartWidth - chartLeft - chartRight)
	ph = float64(chartHeight - chartTop - chartBottom)
	px = func(x float64) float64 { return chartLeft + x/xtop*pw }
	py = func(y float64) float64 { return chartTop + ph - y/ytop*ph }
	esc := html.EscapeString
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartWidth, chartHeight, chartWidth, chartHeight)
	fmt.Fprintf(b, "<title>%s</title>\n", esc(title))
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", chartWidth, chartHeight)
	fmt.Fprintf(b, `<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", chartLeft, esc(title))
	for v := 0.0; v <= xtop+xstep/2; v += xstep {
		x := svgNum(px(v))
		fmt.Fprintf(b, `<line x1="%s" y1="%d" x2="%s" y2="%s" stroke="#e5e5e5"/>`+"\n", x, chartTop, x, svgNum(chartTop+ph))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", x, svgNum(chartTop+ph+16), tickLabel(v, xstep))
	}
	for v := 0.0; v <= ytop+ystep/2; v += ystep {
		y := svgNum(py(v))
		fmt.Fprintf(b, `<line x1="%d" y1="%s" x2="%s" y2="%s" stroke="#e5e5e5"/>`+"\n", chartLeft, y, svgNum(chartLeft+pw), y)
		fmt.Fprintf(b, `<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", chartLeft-6, y, tickLabel(v, ystep))
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%s" height="%s" fill="none" stroke="#444"/>`+"\n", chartLeft, chartTop, svgNum(pw), svgNum(ph))
	return px, py, pw, ph
}

func finiteOr(v, fallback float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fallback
	}
	return math.Max(v, fallback)
}

const htmlStyle = `body{font-family:sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;font-variant-numeric:tabular-nums}
th{background:#f4f4f4}
.l{text-align:left}
.worse,.fail{color:#b00020;font-weight:bold}
.better,.pass{color:#05761f}
svg{display:block;margin:0.5em 0 1.5em}
p.note{color:#555}`

// WriteHTML writes a self-contained HTML report that opens offline: no
// scripts, fonts, styles or images from elsewhere. It holds the
// throughput-latency charts (ChartMetrics, inline SVG), the summary table,
// the comparisons with their verdicts, and the gates.
func WriteHTML(w io.Writer, s *ExperimentSummary) error {
	esc := html.EscapeString
	name := s.Name
	if name == "" {
		name = "experiment"
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<title>vbench: %s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", esc(name), htmlStyle)
	fmt.Fprintf(&b, "<h1>vbench: %s</h1>\n", esc(name))
	if s.Hash != "" {
		fmt.Fprintf(&b, "<p class=\"note\">Experiment scenario %s.</p>\n", esc(s.Hash))
	}
	var charts []string
	for _, m := range ChartMetrics(s.Metrics) {
		if svg := ChartSVG(s, m); svg != "" {
			charts = append(charts, svg)
		}
	}
	if len(charts) > 0 {
		b.WriteString("<h2>Throughput and latency</h2>\n")
		for _, c := range charts {
			b.WriteString(c)
		}
	}

	if svg := ParetoSVG(s); svg != "" {
		b.WriteString("<h2>Pareto frontier</h2>\n")
		b.WriteString(svg)
		b.WriteString("<p class=\"note\">Output tokens/s per user is output_throughput divided by max_concurrency (else by the peak of concurrent requests); per GPU, divided by target.gpus. The line joins the points no other point beats on both.</p>\n")
	}

	variants := s.HasVariants()
	cols := s.consoleColumns()
	b.WriteString("<h2>Summary</h2>\n<table>\n<tr>")
	for _, t := range append(s.labelTitles(variants), "runs") {
		fmt.Fprintf(&b, "<th class=\"l\">%s</th>", esc(t))
	}
	for _, c := range cols {
		fmt.Fprintf(&b, "<th>%s</th>", esc(c.title))
	}
	b.WriteString("</tr>\n")
	for _, r := range s.Rows {
		b.WriteString("<tr>")
		for _, c := range s.rowLabels(r, variants) {
			fmt.Fprintf(&b, "<td class=\"l\">%s</td>", esc(c))
		}
		fmt.Fprintf(&b, "<td class=\"l\">%d</td>", len(r.Files))
		for _, c := range cols {
			fmt.Fprintf(&b, "<td>%s</td>", esc(formatCell(r.Stats[c.key])))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	fmt.Fprintf(&b, "<p class=\"note\">Cells are means over the runs, ± half the width of the %s confidence interval when there are several. summary.csv and summary.json hold every metric with its std, min, max, CV and interval.</p>\n", esc(levelText(s.Level)))

	if len(s.Comparisons) > 0 {
		fmt.Fprintf(&b, "<h2>Comparison with %s</h2>\n<table>\n<tr>", esc(s.Baseline))
		heads := []string{"variant", "metric", "baseline", "value", "change", "CI", "method", "verdict"}
		if len(s.Axes) > 0 {
			heads = append([]string{"point"}, heads...)
		}
		for _, h := range heads {
			fmt.Fprintf(&b, "<th class=\"l\">%s</th>", esc(h))
		}
		b.WriteString("</tr>\n")
		for _, c := range s.Comparisons {
			b.WriteString("<tr>")
			if len(s.Axes) > 0 {
				fmt.Fprintf(&b, "<td class=\"l\">%s</td>", esc(c.Point))
			}
			cls := strings.ReplaceAll(c.Verdict, " ", "-")
			fmt.Fprintf(&b, "<td class=\"l\">%s</td><td class=\"l\">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"l\">%s</td><td class=\"l %s\">%s</td></tr>\n",
				esc(c.Variant), esc(c.Metric), strconv.FormatFloat(c.Base, 'f', 2, 64), strconv.FormatFloat(c.Value, 'f', 2, 64),
				esc(signedPct(c.Change)), esc(formatCI(c.Low, c.High)), esc(c.Method), cls, esc(c.Verdict))
		}
		b.WriteString("</table>\n")
		for _, l := range VerdictLines(s) {
			fmt.Fprintf(&b, "<p>%s.</p>\n", esc(l))
		}
	}
	if len(s.Gates) > 0 {
		b.WriteString("<h2>Gates</h2>\n<ul>\n")
		for _, g := range s.Gates {
			cls := "pass"
			if g.Failed {
				cls = "fail"
			}
			fmt.Fprintf(&b, "<li class=\"%s\">%s</li>\n", cls, esc(GateLine(g)))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
