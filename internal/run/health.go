package run

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/record"
)

// Thresholds above which a run is flagged as likely client-bound.
const (
	// MaxHealthySendLagP99 is the largest healthy 99th percentile of send
	// lag: beyond it the dispatcher fell behind its schedule.
	MaxHealthySendLagP99 = 10 * time.Millisecond
	// MaxHealthyReadLagP99 is the largest healthy 99th percentile of the
	// requests' read lag (record.ReadLag): beyond it the client was late
	// reading responses, so tokens that arrived apart were read together.
	MaxHealthyReadLagP99 = 10 * time.Millisecond
	// MinReadLagRequests is the fewest requests with a measured read lag
	// for which its 99th percentile is a verdict: below it the percentile
	// is one read's hiccup (a GC, a page fault at start), not a pattern.
	MinReadLagRequests = 20
	// MaxHealthyCPUFraction is the largest healthy share of the available
	// CPU (wall time × GOMAXPROCS) the client may use, and of the host's
	// CPU that may be busy (a saturated host can delay the client's reads
	// whoever is using it: when other processes kept it busy, Health says
	// so in HostNote, but does not blame the client).
	MaxHealthyCPUFraction = 0.9
)

// Load is the resource use measured around a run.
type Load struct {
	// CPU is the client's CPU time during the run.
	CPU Usage
	// Wall is the run's duration.
	Wall time.Duration
	// Procs is GOMAXPROCS.
	Procs int
	// GC counts the garbage collections during the run.
	GC GCStats
	// HostBusy is the busy share of the host's CPU, or -1 when unknown.
	HostBusy float64
	// HostCores is the number of CPUs of the host (0 when unknown).
	HostCores int
	// TopOther is the busiest other process during the run, or nil.
	TopOther *ProcShare
	// WithSimulator says the process also ran the server (vbench's
	// built-in simulator), so CPU is not the client's alone.
	WithSimulator bool
}

// Health is how well the client kept up during a run: how late requests
// were released against their schedule, how much CPU the client used, and
// whether either suggests the client, not the server, limited the run.
type Health struct {
	// Requests is the number of released requests the send lag is over.
	Requests int
	// SendLagP50, SendLagP99 and SendLagMax are percentiles (numpy's linear
	// interpolation) and the maximum of Released−Intended.
	SendLagP50, SendLagP99, SendLagMax time.Duration
	// ReadLagRequests is the number of requests whose read lag is known
	// (receive timestamps); ReadLagP50, ReadLagP99 and ReadLagMax are the
	// percentiles and maximum of their record.ReadLag.
	ReadLagRequests                    int
	ReadLagP50, ReadLagP99, ReadLagMax time.Duration
	// CPU is the client's CPU time during the run.
	CPU Usage
	// Wall is the run's duration.
	Wall time.Duration
	// Procs is GOMAXPROCS, the cores the client could use.
	Procs int
	// CPUFraction is CPU.Total() / (Wall × Procs).
	CPUFraction float64
	// GC counts the garbage collections during the run.
	GC GCStats
	// HostBusy is the busy share of the whole host's CPU during the run
	// (every process), or -1 when unknown.
	HostBusy float64
	// HostCores is the number of CPUs of the host (0 when unknown).
	HostCores int
	// TopOther is the other process that used the most of the host's CPU
	// during the run (Linux), or nil.
	TopOther *ProcShare
	// WithSimulator says CPU includes the built-in simulator's; the CPU
	// criterion of ClientBound is then skipped.
	WithSimulator bool
	// ClientBound is set on the client's own signals only: when
	// SendLagP99 > MaxHealthySendLagP99, ReadLagP99 >
	// MaxHealthyReadLagP99 (over at least MinReadLagRequests), or CPUFraction (unless WithSimulator) >
	// MaxHealthyCPUFraction; Reasons says which. A busy
	// host alone does not set it (see HostNote).
	ClientBound bool
	// Reasons lists the exceeded thresholds, in words.
	Reasons []string
	// OthersBusy is set when HostBusy > MaxHealthyCPUFraction and other
	// processes, not the client, used most of the host's busy time (or the
	// split is unknown).
	OthersBusy bool
	// ClientHostShare is the client's share of the whole host's CPU
	// (CPU / (Wall × HostCores)), or -1 when HostCores is unknown.
	ClientHostShare float64
	// HostNote says in words that the host was saturated and by whom
	// ("host CPU 97% busy, 94% by other processes (top: llama-server, pid
	// 412, 80%)"), or "" when HostBusy ≤ MaxHealthyCPUFraction.
	HostNote string
}

// Lags are the dispatcher's send lags over the requests released and the
// read lags of the requests that have one, in seconds: numpy's 50th and
// 99th percentiles and the maximum (see record.Record.SendLag, ReadLag).
type Lags struct {
	// Requests is the number of requests released; ReadRequests the
	// number with a read lag.
	Requests, ReadRequests    int
	SendP50, SendP99, SendMax float64
	ReadP50, ReadP99, ReadMax float64
}

// LagsOf computes the Lags of records.
func LagsOf(recs []*record.Record) Lags {
	l := Lags{Requests: len(recs)}
	lags := make([]float64, len(recs))
	for i, r := range recs {
		lags[i] = r.SendLag().Seconds()
	}
	if len(lags) > 0 {
		l.SendP50, l.SendP99, l.SendMax = numpy.Percentile(lags, 50), numpy.Percentile(lags, 99), slices.Max(lags)
	}
	var reads []float64
	for _, r := range recs {
		if r.ReadLag > 0 {
			reads = append(reads, r.ReadLag.Seconds())
		}
	}
	if l.ReadRequests = len(reads); len(reads) > 0 {
		l.ReadP50, l.ReadP99, l.ReadMax = numpy.Percentile(reads, 50), numpy.Percentile(reads, 99), slices.Max(reads)
	}
	return l
}

// ComputeHealth derives the client-health numbers from the run's records
// and the resource use measured around it: HealthOf their Lags.
func ComputeHealth(recs []*record.Record, load Load) Health {
	return HealthOf(LagsOf(recs), load)
}

// HealthOf derives the client-health numbers from the run's lags and the
// resource use measured around it. It is a pure function.
func HealthOf(l Lags, load Load) Health {
	cpu, wall, procs := load.CPU, load.Wall, load.Procs
	h := Health{Requests: l.Requests, CPU: cpu, Wall: wall, Procs: procs, GC: load.GC, HostBusy: load.HostBusy,
		HostCores: load.HostCores, TopOther: load.TopOther, WithSimulator: load.WithSimulator, ClientHostShare: -1}
	if l.Requests > 0 {
		h.SendLagP50, h.SendLagP99, h.SendLagMax = seconds(l.SendP50), seconds(l.SendP99), seconds(l.SendMax)
	}
	if h.ReadLagRequests = l.ReadRequests; l.ReadRequests > 0 {
		h.ReadLagP50, h.ReadLagP99, h.ReadLagMax = seconds(l.ReadP50), seconds(l.ReadP99), seconds(l.ReadMax)
	}
	if wall > 0 && procs > 0 {
		h.CPUFraction = cpu.Total().Seconds() / (wall.Seconds() * float64(procs))
	}
	if h.SendLagP99 > MaxHealthySendLagP99 {
		h.Reasons = append(h.Reasons, fmt.Sprintf("send lag p99 %s ms > %s ms",
			Millis(h.SendLagP99), Millis(MaxHealthySendLagP99)))
	}
	if h.ReadLagP99 > MaxHealthyReadLagP99 && h.ReadLagRequests >= MinReadLagRequests {
		h.Reasons = append(h.Reasons, fmt.Sprintf("read lag p99 %s ms > %s ms",
			Millis(h.ReadLagP99), Millis(MaxHealthyReadLagP99)))
	}
	if h.CPUFraction > MaxHealthyCPUFraction && !h.WithSimulator {
		h.Reasons = append(h.Reasons, fmt.Sprintf("CPU %.0f%% of %d cores > %.0f%%",
			100*h.CPUFraction, procs, 100*MaxHealthyCPUFraction))
	}
	h.ClientBound = len(h.Reasons) > 0
	if wall > 0 && load.HostCores > 0 {
		h.ClientHostShare = min(cpu.Total().Seconds()/(wall.Seconds()*float64(load.HostCores)), 1)
	}
	if h.HostBusy > MaxHealthyCPUFraction {
		h.HostNote = fmt.Sprintf("host CPU %.0f%% busy", 100*h.HostBusy)
		others := -1.0
		if h.ClientHostShare >= 0 {
			others = max(h.HostBusy-h.ClientHostShare, 0)
			h.HostNote += fmt.Sprintf(", %.0f%% by other processes", 100*others)
		}
		if t := h.TopOther; t != nil {
			h.HostNote += fmt.Sprintf(" (top: %s, pid %d, %.0f%%)", t.Name, t.PID, 100*t.Share)
		}
		h.OthersBusy = others < 0 || others >= h.ClientHostShare
	}
	return h
}

// seconds converts float seconds to a Duration, rounding to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// Millis formats d in milliseconds with two decimals ("0.02").
func Millis(d time.Duration) string {
	return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond))
}
