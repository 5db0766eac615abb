// Package timeline writes the request timeline of a run (vLLM's
// --plot-timeline): one self-contained HTML file, with no network access
// at all, that draws one bar per request (client queue, prefill, decode
// coloured by the inter-token latency thresholds) and, when the server's
// load gauges were sampled, the KV-cache usage and the running and waiting
// request counts under it on the same time axis.
//
// vLLM's plot (plotly, loaded from a CDN) draws each request's TTFT and
// then one segment per inter-token latency, coloured green below the first
// threshold, orange below the second and red from it on. This page keeps
// that idea: every ITL segment is classified the same way, consecutive
// segments of one class are drawn as one, and the client-queue time
// (released → sent) is drawn before the prefill. The data is one compact
// JSON document inside the page, drawn by an inline script on a canvas.
//
// It imports only leaf packages (record, promscrape, atomicfile).
package timeline

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vbench/vbench/internal/atomicfile"
	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/record"
)

// Input is what a timeline shows.
type Input struct {
	// Title heads the page (the result file's name, say).
	Title string
	// Records are the run's per-request records, in request order.
	// Requests that were never sent (record.Record.NotSent) get no bar.
	Records []*record.Record
	// Samples are the server's load gauges over the run, in time order
	// (nil: no gauge panel).
	Samples []promscrape.ServerSample
	// Thresholds are the two ITL thresholds in milliseconds
	// (--timeline-itl-thresholds): an ITL below the first is fast, below
	// the second medium, else slow, tested in that order as vLLM does.
	Thresholds [2]float64
}

// ErrNoRequests is returned by Write when no request was sent: there is
// nothing to draw.
var ErrNoRequests = fmt.Errorf("no request was sent")

// Write renders in as HTML and writes it atomically at path (replacing
// any file there), with permission bits 0644. It returns ErrNoRequests,
// writing nothing, when no record was sent.
func Write(path string, in Input) error {
	html, err := render(in)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, html, 0o644)
}

// maxRuns bounds the decode runs (consecutive ITLs of one class) the page
// holds over all requests, so that the file stays small for long runs at
// high concurrency: above it, runs shorter than a cell (chosen so the
// bound holds) merge into the next run and take the slowest class among
// them, and the page says so.
const maxRuns = 400_000

// page is the JSON document the page's script draws. Times are integer
// microseconds on the run's clock (zero at the run start).
type page struct {
	Title string `json:"title"`
	// Thr are the thresholds in ms; Labels name the three ITL classes.
	Thr    [2]float64 `json:"thr"`
	Labels [3]string  `json:"labels"`
	// Cell is the merge cell of the decode runs in µs (0: exact).
	Cell int64 `json:"cell"`
	// R holds one array per bar: index, released, start, first token (-1:
	// none), end (-1: none), prompt tokens, output tokens, error (index in
	// Errors, -1: success), the ITL counts per class (three), then the
	// decode runs as class, duration pairs from the first token on.
	R [][]int64 `json:"r"`
	// Errors are the distinct error texts, shortened.
	Errors []string `json:"errors"`
	// S are the gauge samples: at (µs), KV-cache usage (fraction),
	// running, waiting; -1 where the server exposes no such gauge.
	S [][4]float64 `json:"s"`
}

// maxErrorText is the longest error text kept per distinct error.
const maxErrorText = 300

//go:embed page.html
var pageTemplate string

// dataMarker is where the page template takes the JSON document.
const dataMarker = "/*TIMELINE-DATA*/null"

// render returns the page for in.
func render(in Input) ([]byte, error) {
	p, err := build(in)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encoding the timeline data: %w", err)
	}
	// encoding/json already escapes <, > and & (so no "</script>" can
	// close the data early); "://" in a text (an error naming a URL) is
	// escaped too, so that the file holds no URL at all. In JSON, ":"
	// outside a string is never followed by "//".
	data = bytes.ReplaceAll(data, []byte("://"), []byte(`\u003a//`))
	before, after, ok := strings.Cut(pageTemplate, dataMarker)
	if !ok {
		return nil, fmt.Errorf("internal error: the timeline page template has no data marker")
	}
	var b bytes.Buffer
	b.Grow(len(pageTemplate) + len(data))
	b.WriteString(before)
	b.Write(data)
	b.WriteString(after)
	return b.Bytes(), nil
}

// build turns in into the page's data.
func build(in Input) (*page, error) {
	t0, t1 := in.Thresholds[0], in.Thresholds[1]
	p := &page{Title: in.Title, Thr: in.Thresholds, Labels: labels(in.Thresholds), R: [][]int64{}, Errors: []string{}}
	sent := make([]*record.Record, 0, len(in.Records))
	for _, r := range in.Records {
		if r != nil && !r.NotSent {
			sent = append(sent, r)
		}
	}
	if len(sent) == 0 {
		return nil, ErrNoRequests
	}
	class := func(itl time.Duration) int64 {
		ms := float64(itl) / float64(time.Millisecond)
		switch {
		case ms < t0:
			return 0
		case ms < t1:
			return 1
		}
		return 2
	}
	// The exact runs first; when there are too many, merge them into
	// cells sized so that the bound holds.
	exact, decode := 0, time.Duration(0)
	for _, r := range sent {
		exact += countRuns(r.Chunks, class)
		if n := len(r.Chunks); n > 1 {
			decode += r.Chunks[n-1] - r.Chunks[0]
		}
	}
	var cell time.Duration
	if exact > maxRuns {
		cell = max(decode/maxRuns, time.Microsecond)
		p.Cell = cell.Microseconds()
	}
	errIndex := map[string]int64{}
	for _, r := range sent {
		row := []int64{int64(r.Index), us(r.Released), us(r.Start), -1, -1, int64(r.PromptLen), int64(r.OutputTokens), -1, 0, 0, 0}
		if len(r.Chunks) > 0 {
			row[3] = us(r.Chunks[0])
		}
		if r.End > 0 {
			row[4] = us(r.End)
		}
		if !r.Success {
			text := shorten(r.Error)
			k, ok := errIndex[text]
			if !ok {
				k = int64(len(p.Errors))
				errIndex[text] = k
				p.Errors = append(p.Errors, text)
			}
			row[7] = k
		}
		row = appendRuns(row, r.Chunks, class, cell)
		p.R = append(p.R, row)
	}
	p.S = make([][4]float64, 0, len(in.Samples))
	for _, s := range in.Samples {
		p.S = append(p.S, [4]float64{float64(us(s.At)), gauge(s.KVCacheUsage), gauge(s.Running), gauge(s.Waiting)})
	}
	return p, nil
}

// countRuns is the number of runs of one class among the ITLs of chunks.
func countRuns(chunks []time.Duration, class func(time.Duration) int64) int {
	n, prev := 0, int64(-1)
	for i := 1; i < len(chunks); i++ {
		if c := class(chunks[i] - chunks[i-1]); c != prev {
			n, prev = n+1, c
		}
	}
	return n
}

// appendRuns appends to row the ITL counts per class (into row[8:11]) and
// the decode runs of chunks as class, duration (µs) pairs. With cell > 0,
// a run shorter than cell merges with the next one, taking the slower
// class, so every run but the last lasts at least cell.
func appendRuns(row []int64, chunks []time.Duration, class func(time.Duration) int64, cell time.Duration) []int64 {
	if len(chunks) < 2 {
		return row
	}
	cur, from := int64(-1), chunks[0]
	flush := func(to time.Duration) {
		row = append(row, cur, us(to)-us(from))
		from = to
	}
	for i := 1; i < len(chunks); i++ {
		c := class(chunks[i] - chunks[i-1])
		row[8+c]++
		switch {
		case cur < 0:
			cur = c
		case c == cur:
		case cell > 0 && chunks[i-1]-from < cell:
			cur = max(cur, c)
		default:
			flush(chunks[i-1])
			cur = c
		}
	}
	flush(chunks[len(chunks)-1])
	return row
}

// labels are the legend's names of the three ITL classes, as vLLM names
// them ("ITL < 25ms", "25ms ≤ ITL < 50ms", "ITL ≥ 50ms"), with the
// thresholds written in full rather than rounded to whole milliseconds.
func labels(thr [2]float64) [3]string {
	a, b := msText(thr[0]), msText(thr[1])
	return [3]string{"ITL < " + a, a + " ≤ ITL < " + b, "ITL ≥ " + b}
}

// msText writes a threshold in milliseconds, shortest form ("25ms", "2.5ms").
func msText(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "ms" }

// us is d in whole microseconds.
func us(d time.Duration) int64 { return d.Microseconds() }

// gauge is a gauge value for the page: -1 (absent) for anything not a
// finite number >= 0.
func gauge(v float64) float64 {
	if !(v >= 0) || math.IsInf(v, 0) {
		return -1
	}
	return v
}

// shorten cuts an error text to maxErrorText bytes (at a rune boundary).
func shorten(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
