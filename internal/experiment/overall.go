package experiment

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/progress"
)

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
	return &overall{w: w, total: total, start: time.Now(), on: !disabled && progress.IsTerminal(w), now: time.Now}
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
