package calibrate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/kfloor"
	"github.com/vbench/vbench/internal/report"
)

// writeStep prints one step's table: the client's reported TTFT and ITL
// statistics next to the truth, the error, the part the simulator's own
// lateness explains and the part it does not; then the simulator's
// lateness, the client's resource use and its send lag.
func writeStep(w io.Writer, st *Step, procs int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\nconcurrency %d: %d requests, %d failed, %d token events in %.2f s", st.Concurrency, st.Requests, st.Failed, st.Events, st.DurationS)
	if st.LoadAverageBefore != "" {
		fmt.Fprintf(&b, " (load average %s → %s)", st.LoadAverageBefore, st.LoadAverageAfter)
	}
	b.WriteByte('\n')
	if st.FirstError != "" {
		fmt.Fprintf(&b, "  first error: %s\n", st.FirstError)
	}
	fmt.Fprintf(&b, "  %-11s %10s %10s %10s %10s %10s\n", "metric (ms)", "reported", "truth", "error", "simulator", "client")
	sim, cl := "-", "-"
	row := func(name string, reported, truth, errv float64, simv, clv string) {
		fmt.Fprintf(&b, "  %-11s %10.3f %10.3f %+10.3f %10s %10s\n", name, reported, truth, errv, simv, clv)
	}
	f3 := func(v float64) string { return fmt.Sprintf("%.3f", v) }
	s3 := func(v float64) string { return fmt.Sprintf("%+.3f", v) }
	if st.Sim != nil {
		sim, cl = f3(st.Sim.FirstToken.Mean), s3(st.ClientExcess.TTFTMean)
	}
	row("TTFT mean", st.TTFT.Mean, st.TTFT.Truth, st.TTFT.MeanError, sim, cl)
	sim, cl = "-", "-"
	if st.Sim != nil {
		sim, cl = f3(st.Sim.FirstToken.P99), s3(st.TTFT.P99Error-st.Sim.FirstToken.P99)
	}
	row("TTFT p99", st.TTFT.P99, st.TTFT.Truth, st.TTFT.P99Error, sim, cl)
	sim, cl = "-", "-"
	if st.Sim != nil && st.Sim.ITL.Count > 0 {
		e := st.Sim.ITL.Mean - st.ITL.Truth
		sim, cl = s3(e), s3(st.ITL.MeanError-e)
	}
	row("ITL mean", st.ITL.Mean, st.ITL.Truth, st.ITL.MeanError, sim, cl)
	sim, cl = "-", "-"
	if st.Sim != nil && st.Sim.ITL.Count > 0 {
		sim, cl = f3(st.Sim.ITL.Std), s3(st.ClientExcess.ITLStd)
	}
	row("ITL std", st.ITL.Std, 0, st.ITL.Std, sim, cl)
	row("ITL p99", st.ITL.P99, st.ITL.Truth, st.ITL.P99Error, "-", "-")
	rp := st.Request
	fmt.Fprintf(&b, "  request path (ms): start→written mean %.3f p99 %.3f; written→headers mean %.3f p99 %.3f; start→headers mean %.3f p99 %.3f max %.3f\n",
		rp.Written.Mean, rp.Written.P99, rp.WrittenToHeader.Mean, rp.WrittenToHeader.P99, rp.StartToHeader.Mean, rp.StartToHeader.P99, rp.StartToHeader.Max)
	if s := st.Sim; s != nil {
		fmt.Fprintf(&b, "  simulator lateness (ms): first token mean %.3f p99 %.3f max %.3f; later tokens mean %.3f p99 %.3f max %.3f\n",
			s.FirstToken.Mean, s.FirstToken.P99, s.FirstToken.Max, s.LaterTokens.Mean, s.LaterTokens.P99, s.LaterTokens.Max)
		if st.SimCPUSeconds > 0 && st.DurationS > 0 {
			fmt.Fprintf(&b, "  simulator: CPU %.2f s (%.0f%% of one core)\n", st.SimCPUSeconds, 100*st.SimCPUSeconds/st.DurationS)
		}
	} else {
		b.WriteString("  simulator lateness: not reported by the target\n")
	}
	c := st.Client
	if st.Events > 0 {
		perEvent := func(sec float64) float64 { return sec * 1e6 / float64(st.Events) }
		fmt.Fprintf(&b, "  CPU per token event (µs): client %.2f (user %.2f, system %.2f)",
			perEvent(c.CPUSeconds), perEvent(c.CPUUserS), perEvent(c.CPUSystemS))
		if st.SimCPUSeconds > 0 {
			fmt.Fprintf(&b, "; simulator %.2f (user %.2f, system %.2f)",
				perEvent(st.SimCPUSeconds), perEvent(st.SimCPUUserS), perEvent(st.SimCPUSystemS))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "  client: CPU %.2f s (%.4f s per 1000 events, %.0f%% of %d cores), peak RSS %.1f MB (%s), GC %d cycles (%.2f ms paused)\n",
		c.CPUSeconds, c.CPUPer1000Events, 100*c.CPUFraction, procs, float64(c.PeakRSSBytes)/(1<<20), c.PeakRSSScope, c.GCCycles, c.GCPauseMs)
	if c.HostCPUBusy >= 0 {
		fmt.Fprintf(&b, "  host: CPU %.0f%% busy (every process)\n", 100*c.HostCPUBusy)
	}
	fmt.Fprintf(&b, "  send lag (ms): p50 %.3f, p99 %.3f, max %.3f\n", c.SendLag.P50, c.SendLag.P99, c.SendLag.Max)
	for _, warn := range c.Warnings {
		fmt.Fprintf(&b, "  WARNING: client timing is likely distorted: %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFloor prints the kernel floor: what an event costs the sender's and
// the receiver's kernel on this host before any user-space work, on the
// cheapest CPU; then each CPU's, and a warning when they differ much.
func writeFloor(w io.Writer, f *kfloor.Floor) {
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	fmt.Fprintf(w, "Kernel floor on this host (CPU µs per token event on loopback): write(2) %.2f, recvmsg(2) %.2f; a null system call %.2f\n",
		us(f.Write), us(f.Recvmsg), us(f.Syscall))
	if len(f.PerCPU) < 2 {
		return
	}
	var b strings.Builder
	b.WriteString("  per CPU:")
	for i, c := range f.PerCPU {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " cpu%d write(2) %.2f, recvmsg(2) %.2f, null system call %.2f", c.CPU, us(c.Write), us(c.Recvmsg), us(c.Syscall))
	}
	b.WriteByte('\n')
	if sp := f.Spread(); sp > floorSpreadWarn {
		fmt.Fprintf(&b, "  WARNING: an event costs the kernel %.0f%% more on one CPU than on another: figures depend on the CPUs the processes run on (pin them with taskset to compare runs)\n", 100*sp)
	}
	_, _ = io.WriteString(w, b.String())
}

// floorSpreadWarn is the difference between CPUs' floors above which
// writeFloor warns.
const floorSpreadWarn = 0.2

// WriteJSON writes rep to path atomically (temp file and rename).
func WriteJSON(path string, rep *Report) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the calibration: %w", err)
	}
	if err := report.WriteResultFile(path, append(data, '\n'), false); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
