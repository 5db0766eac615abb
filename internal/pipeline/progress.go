package pipeline

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/vbench/vbench/internal/record"
)

// IsTerminal reports whether w is a terminal (a character device).
func IsTerminal(w io.Writer) bool { return isTerminal(w) }

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
