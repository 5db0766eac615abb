package experiment

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/vbench/vbench/internal/record"
)

// isTerminal reports whether w is a terminal (x/term's check, which
// unlike a character-device test is false for /dev/null).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress draws a one-line progress bar on a terminal: requests done of
// total, elapsed time and ETA. It draws nothing when w is not a terminal
// or when disabled, and at most ten times a second otherwise, so it costs
// the run next to nothing.
type progress struct {
	w     io.Writer
	total int
	ndone int
	start time.Time
	last  time.Time
	on    bool
}

func newProgress(w io.Writer, total int, disabled bool) *progress {
	return &progress{w: w, total: total, start: time.Now(), on: !disabled && isTerminal(w)}
}

// done counts one finished request; the executor calls it serially.
func (p *progress) done(*record.Record) {
	p.ndone++
	if !p.on {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond || p.ndone == p.total {
		p.last = now
		p.draw(now)
	}
}

func (p *progress) draw(now time.Time) {
	elapsed := now.Sub(p.start)
	eta := "?"
	if p.ndone > 0 {
		left := time.Duration(float64(elapsed) / float64(p.ndone) * float64(p.total-p.ndone))
		eta = left.Round(time.Second).String()
	}
	const width = 30
	filled := width * p.ndone / max(p.total, 1)
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = ' '
		if i < filled {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r%3d%%|%s| %d/%d [%s<%s]", 100*p.ndone/max(p.total, 1), bar, p.ndone, p.total, elapsed.Round(time.Second), eta)
}

// finish ends the bar's line.
func (p *progress) finish() {
	if p.on {
		p.draw(time.Now())
		fmt.Fprintln(p.w)
	}
}

// overall is an experiment's progress line, written once before each run
// on a terminal: "run k of n" with the run's point, variant and repeat,
// the runs skipped as already done, the elapsed time and an ETA from the
// average duration of the runs made so far. Like the per-run bar it is off
// when w is not a terminal or when disabled (output.disable_tqdm).
type overall struct {
	w       io.Writer
	total   int
	start   time.Time
	ran     int // runs made (not skipped) before the current one
	skipped int
	on      bool
	now     func() time.Time
}

func newOverall(w io.Writer, total int, disabled bool) *overall {
	return &overall{w: w, total: total, start: time.Now(), on: !disabled && isTerminal(w), now: time.Now}
}

// skip counts a run skipped by --resume.
func (o *overall) skip() { o.skipped++ }

// begin announces run k (0-based) and counts it as made.
func (o *overall) begin(k int, label string) {
	if o.on {
		fmt.Fprintln(o.w, o.line(k, label))
	}
	o.ran++
}

// line is the progress line of run k (0-based): the ETA assumes the runs
// still to make take the average time of those made since the start.
func (o *overall) line(k int, label string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[experiment] run %d of %d", k+1, o.total)
	if label != "" {
		b.WriteString(": " + label)
	}
	elapsed := o.now().Sub(o.start)
	eta := "?"
	if o.ran > 0 {
		left := o.total - k
		eta = (time.Duration(float64(elapsed) / float64(o.ran) * float64(left))).Round(time.Second).String()
	}
	if o.skipped > 0 {
		fmt.Fprintf(&b, " (%d skipped)", o.skipped)
	}
	fmt.Fprintf(&b, " [%s<%s]", elapsed.Round(time.Second), eta)
	return b.String()
}
