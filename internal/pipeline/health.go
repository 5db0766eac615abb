package pipeline

import (
	"fmt"
	"strings"

	"github.com/vbench/vbench/internal/run"
)

// clientHealth is the "client_health" object inside the result's "vbench"
// object: how well the client kept up (see run.Health).
type clientHealth struct {
	SendLagMs   sendLagMs  `json:"send_lag_ms"`
	ReadLagMs   *sendLagMs `json:"read_lag_ms,omitempty"`
	CPUUserS    float64    `json:"cpu_user_s"`
	CPUSystemS  float64    `json:"cpu_system_s"`
	CPUS        float64    `json:"cpu_s"`
	CPUFraction float64    `json:"cpu_fraction"`
	Cores       int        `json:"cores"`
	GCCycles    int64      `json:"gc_cycles"`
	GCPauseMs   float64    `json:"gc_pause_ms"`
	HostBusy    *float64   `json:"host_cpu_busy,omitempty"`
	ClientBound bool       `json:"client_bound"`
	Warnings    []string   `json:"warnings,omitempty"`
	// HostNote says the host was saturated and by whom (run.Health's
	// HostNote); OthersBusy that other processes, not vbench, kept it busy.
	HostNote   string      `json:"host_note,omitempty"`
	OthersBusy bool        `json:"others_busy,omitempty"`
	TopOther   *topProcess `json:"host_top_process,omitempty"`
}

// topProcess is the busiest other process on the host during the run.
type topProcess struct {
	PID   int     `json:"pid"`
	Name  string  `json:"name"`
	Share float64 `json:"host_cpu_share"`
}

// sendLagMs holds send-lag (or read-lag) percentiles in milliseconds.
type sendLagMs struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// newClientHealth converts h for the result JSON; nil when h describes no
// request.
func newClientHealth(h run.Health) *clientHealth {
	if h.Requests == 0 {
		return nil
	}
	ms := func(d interface{ Seconds() float64 }) float64 { return d.Seconds() * 1000 }
	var host *float64
	if h.HostBusy >= 0 {
		host = &h.HostBusy
	}
	var readLag *sendLagMs
	if h.ReadLagRequests > 0 {
		readLag = &sendLagMs{P50: ms(h.ReadLagP50), P99: ms(h.ReadLagP99), Max: ms(h.ReadLagMax)}
	}
	var top *topProcess
	if t := h.TopOther; t != nil {
		top = &topProcess{PID: t.PID, Name: t.Name, Share: t.Share}
	}
	return &clientHealth{
		ReadLagMs:   readLag,
		HostNote:    h.HostNote,
		OthersBusy:  h.OthersBusy,
		TopOther:    top,
		HostBusy:    host,
		SendLagMs:   sendLagMs{P50: ms(h.SendLagP50), P99: ms(h.SendLagP99), Max: ms(h.SendLagMax)},
		CPUUserS:    h.CPU.User.Seconds(),
		CPUSystemS:  h.CPU.System.Seconds(),
		CPUS:        h.CPU.Total().Seconds(),
		CPUFraction: h.CPUFraction,
		Cores:       h.Procs,
		GCCycles:    h.GC.Cycles,
		GCPauseMs:   ms(h.GC.Pause),
		ClientBound: h.ClientBound,
		Warnings:    h.Reasons,
	}
}

// healthLines is the console report of h: one line, a warning line when
// the client was likely the bottleneck (on its own signals), and a note
// when other processes kept the host busy.
func healthLines(h run.Health) string {
	if h.Requests == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Client health: send lag p50 %s ms, p99 %s ms, max %s ms; ",
		run.Millis(h.SendLagP50), run.Millis(h.SendLagP99), run.Millis(h.SendLagMax))
	if h.ReadLagRequests > 0 {
		fmt.Fprintf(&b, "read lag p99 %s ms, max %s ms; ", run.Millis(h.ReadLagP99), run.Millis(h.ReadLagMax))
	}
	fmt.Fprintf(&b, "CPU %.2f s (%.0f%% of %d cores)", h.CPU.Total().Seconds(), 100*h.CPUFraction, h.Procs)
	if h.WithSimulator {
		b.WriteString(" (includes the built-in simulator)")
	}
	if h.HostBusy >= 0 {
		fmt.Fprintf(&b, "; host CPU %.0f%% busy", 100*h.HostBusy)
	}
	b.WriteByte('\n')
	if h.ClientBound {
		fmt.Fprintf(&b, "WARNING: the client was likely the bottleneck (%s): these numbers may describe vbench, not the server; do not publish them as the server's.\n",
			strings.Join(h.Reasons, "; "))
	}
	if h.OthersBusy {
		fmt.Fprintf(&b, "NOTE: other processes kept the host busy (%s)", h.HostNote)
		if !h.ClientBound {
			b.WriteString("; vbench itself kept up (send lag, read lag and CPU within bounds), so the client is not blamed")
		}
		b.WriteString(". If the server runs on this host, these numbers include that contention.\n")
	}
	return b.String()
}

// ClientHealthObject is the "client_health" object a result's "vbench"
// object holds for h (nil when h describes no requests), as result readers
// find it.
func ClientHealthObject(h run.Health) any {
	if c := newClientHealth(h); c != nil {
		return c
	}
	return nil
}
