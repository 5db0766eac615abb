package calibrate

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/kfloor"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/sim"
)

// exposition builds a /metrics text with the families calibration reads.
func exposition(firstBuckets, nextBuckets string, first, next [3]float64, itl [3]float64) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return `# TYPE vbench_sim_event_lateness_seconds histogram
` + firstBuckets + `vbench_sim_event_lateness_seconds_bucket{event="first",le="+Inf"} ` + f(first[0]) + `
vbench_sim_event_lateness_seconds_sum{event="first"} ` + f(first[1]) + `
vbench_sim_event_lateness_seconds_count{event="first"} ` + f(first[0]) + `
` + nextBuckets + `vbench_sim_event_lateness_seconds_bucket{event="next",le="+Inf"} ` + f(next[0]) + `
vbench_sim_event_lateness_seconds_sum{event="next"} ` + f(next[1]) + `
vbench_sim_event_lateness_seconds_count{event="next"} ` + f(next[0]) + `
# TYPE vbench_sim_event_lateness_squared_seconds_total counter
vbench_sim_event_lateness_squared_seconds_total{event="first"} ` + f(first[2]) + `
vbench_sim_event_lateness_squared_seconds_total{event="next"} ` + f(next[2]) + `
# TYPE vllm:inter_token_latency_seconds histogram
vllm:inter_token_latency_seconds_bucket{le="+Inf"} ` + f(itl[0]) + `
vllm:inter_token_latency_seconds_sum ` + f(itl[1]) + `
vllm:inter_token_latency_seconds_count ` + f(itl[0]) + `
# TYPE vbench_sim_written_itl_squared_seconds_total counter
vbench_sim_written_itl_squared_seconds_total ` + f(itl[2]) + `
`
}

func TestSimDelta(t *testing.T) {
	// Before: first-token lateness 1ms and 2ms; after adds 2ms, 4ms, 4ms
	// (listed only in buckets that are non-empty).
	before := exposition(
		`vbench_sim_event_lateness_seconds_bucket{event="first",le="0.001"} 1
vbench_sim_event_lateness_seconds_bucket{event="first",le="0.002"} 2
`, "", [3]float64{2, 0.003, 0.000005}, [3]float64{0, 0, 0}, [3]float64{10, 0.1, 0.001})
	after := exposition(
		`vbench_sim_event_lateness_seconds_bucket{event="first",le="0.001"} 1
vbench_sim_event_lateness_seconds_bucket{event="first",le="0.002"} 3
vbench_sim_event_lateness_seconds_bucket{event="first",le="0.004"} 5
`, `vbench_sim_event_lateness_seconds_bucket{event="next",le="0.0005"} 4
`, [3]float64{5, 0.013, 0.000041}, [3]float64{4, 0.002, 0.000001}, [3]float64{14, 0.14, 0.0014 + 0.00000016})
	b, err := parseSim(strings.NewReader(before))
	if err != nil {
		t.Fatal(err)
	}
	a, err := parseSim(strings.NewReader(after))
	if err != nil {
		t.Fatal(err)
	}
	d := simDelta(b, a)
	// First tokens of the step: 2, 4, 4 ms: mean 10/3, std √(12−(10/3)²)... in ms.
	wantMean := 10.0 / 3
	wantStd := math.Sqrt((4+16+16)/3.0 - wantMean*wantMean)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	tests := []struct {
		name      string
		got, want float64
	}{
		{"first count", float64(d.FirstToken.Count), 3},
		{"first mean", d.FirstToken.Mean, wantMean},
		{"first std", d.FirstToken.Std, wantStd},
		{"first p50", d.FirstToken.P50, 4}, // rank 2 of {2,4,4}: the 4ms bucket
		{"first p99", d.FirstToken.P99, 4},
		{"first max", d.FirstToken.Max, 4},
		{"next count", float64(d.LaterTokens.Count), 4},
		{"next mean", d.LaterTokens.Mean, 0.5},
		{"next p99", d.LaterTokens.P99, 0.5},
		{"itl count", float64(d.ITL.Count), 4},
		{"itl mean", d.ITL.Mean, 10},
		{"itl std", d.ITL.Std, 0.2}, // E[x²] = (1e-4·4 + 1.6e-7)/4 = 1e-4 + 4e-8 → σ = 0.2ms
	}
	for _, tt := range tests {
		if !near(tt.got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if _, err := parseSim(strings.NewReader("# TYPE x counter\nx 1\n")); err != errNotSim {
		t.Errorf("parseSim without the simulator's families: %v, want errNotSim", err)
	}
}

func TestConfigSchedule(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		conc     int
		wantN    int
		wantOffs []time.Duration
	}{
		{"requests given", Config{Requests: 5, TTFT: 10 * time.Millisecond, ITL: time.Millisecond, OutputLen: 11}, 2, 5,
			[]time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond, 40 * time.Millisecond}},
		{"from duration: 20ms requests, 65ms → 3 rounds", Config{Duration: 65 * time.Millisecond, TTFT: 10 * time.Millisecond, ITL: time.Millisecond, OutputLen: 11}, 4, 12, nil},
		{"burst", Config{Requests: 3, Burst: true, TTFT: time.Second, OutputLen: 1}, 3, 3, []time.Duration{0, 0, 0}},
		{"staggered", Config{Requests: 4, TTFT: 30 * time.Millisecond, OutputLen: 1}, 3, 4,
			[]time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.cfg.requestsFor(tt.conc)
			if n != tt.wantN {
				t.Fatalf("requests %d, want %d", n, tt.wantN)
			}
			offs := tt.cfg.offsets(n, tt.conc)
			for i := 1; i < len(offs); i++ {
				if offs[i] < offs[i-1] {
					t.Fatalf("offsets decrease: %v", offs)
				}
			}
			if tt.wantOffs != nil && !equalDurations(offs, tt.wantOffs) {
				t.Errorf("offsets %v, want %v", offs, tt.wantOffs)
			}
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"default", func(*Config) {}, ""},
		{"no concurrency", func(c *Config) { c.Concurrency = nil }, "--concurrency: give at least one"},
		{"zero concurrency", func(c *Config) { c.Concurrency = []int{1, 0} }, "--concurrency: 0 is not"},
		{"output", func(c *Config) { c.OutputLen = 0 }, "--output-len must be at least 1"},
		{"duration", func(c *Config) { c.Duration = 0 }, "--duration must be positive"},
		{"duration with requests", func(c *Config) { c.Duration, c.Requests = 0, 3 }, ""},
		{"negative", func(c *Config) { c.ITL = -1 }, "must not be negative"},
	}
	for _, tt := range tests {
		cfg := DefaultConfig()
		tt.mod(&cfg)
		err := cfg.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestRunInProcess calibrates against an in-process simulator.
func TestRunInProcess(t *testing.T) {
	scfg := sim.DefaultConfig()
	scfg.TTFT, scfg.ITL = 5*time.Millisecond, time.Millisecond
	srv, err := sim.Start(scfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var out, progress bytes.Buffer
	cfg := Config{Target: srv.URL(), Concurrency: []int{1, 3}, TTFT: 5 * time.Millisecond, ITL: time.Millisecond,
		OutputLen: 4, Requests: 6, Out: &out, Progress: &progress}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Steps) != 2 || rep.SeparateProcess || rep.Target != srv.URL() {
		t.Fatalf("report %+v", rep)
	}
	for _, st := range rep.Steps {
		if st.Completed != 6 || st.Events != 24 || st.Sim == nil || st.Sim.FirstToken.Count != 6 || st.Sim.LaterTokens.Count != 18 ||
			st.ClientExcess == nil || st.TTFT.Truth != 5 || st.ITL.Truth != 1 || st.Client.CPUSeconds <= 0 || st.Client.PeakRSSBytes <= 0 {
			t.Errorf("step %+v", st)
		}
		// Time runs forward: nothing arrives before the simulator's schedule.
		if st.TTFT.Mean < 5 || st.ITL.Mean <= 0 {
			t.Errorf("TTFT %+v ITL %+v", st.TTFT, st.ITL)
		}
	}
	if got := strings.Count(out.String(), "\nconcurrency "); got != 2 {
		t.Errorf("%d step tables in\n%s", got, out.String())
	}
}

// Calibrate warns about a saturated host as vbench run does: the client's
// own signals first, then the host, naming other processes when they kept
// it busy.
func TestStepWarnings(t *testing.T) {
	llama := &run.ProcShare{PID: 412, Name: "llama-server", Share: 0.8}
	tests := []struct {
		name string
		load run.Load
		want []string
	}{
		{"quiet", run.Load{CPU: run.Usage{User: 100 * time.Millisecond}, Wall: time.Second, Procs: 2, HostBusy: 0.3, HostCores: 2}, nil},
		{"others busy", run.Load{CPU: run.Usage{User: 80 * time.Millisecond}, Wall: time.Second, Procs: 8, HostBusy: 0.99, HostCores: 8, TopOther: llama},
			[]string{"other processes kept the host busy (host CPU 99% busy, 98% by other processes (top: llama-server, pid 412, 80%))"}},
		{"client busy", run.Load{CPU: run.Usage{User: 1900 * time.Millisecond}, Wall: time.Second, Procs: 2, HostBusy: 0.97, HostCores: 2},
			[]string{"CPU 95% of 2 cores > 90%", "host CPU 97% busy, 2% by other processes"}},
	}
	for _, tt := range tests {
		got := stepWarnings(run.ComputeHealth([]*record.Record{{}}, tt.load))
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// The step table splits the client's and the simulator's CPU per token
// event into user and system time; the simulator's part only when its CPU
// was read. The kernel floor's line gives the floor in µs.
func TestCPUPerEventLines(t *testing.T) {
	base := Step{Concurrency: 2, Events: 1000, DurationS: 1,
		Client: Client{CPUSeconds: 0.010, CPUUserS: 0.004, CPUSystemS: 0.006}}
	withSim := base
	withSim.SimCPUSeconds, withSim.SimCPUUserS, withSim.SimCPUSystemS = 0.009, 0.003, 0.006
	tests := []struct {
		name string
		st   Step
		want string
	}{
		{"client only", base, "  CPU per token event (µs): client 10.00 (user 4.00, system 6.00)\n"},
		{"with simulator", withSim, "  CPU per token event (µs): client 10.00 (user 4.00, system 6.00); simulator 9.00 (user 3.00, system 6.00)\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := writeStep(&b, &tt.st, 2); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("%s: no %q in\n%s", tt.name, tt.want, b.String())
		}
	}
	us := time.Microsecond
	cpu := func(n int, w, r time.Duration) kfloor.CPUCosts {
		return kfloor.CPUCosts{CPU: n, Costs: kfloor.Costs{Syscall: us, Write: w, Recvmsg: r}}
	}
	floors := []struct {
		name string
		f    kfloor.Floor
		want string
	}{
		{"one CPU", kfloor.Floor{Costs: kfloor.Costs{Syscall: 1050 * time.Nanosecond, Write: 5790 * time.Nanosecond, Recvmsg: 5290 * time.Nanosecond}},
			"Kernel floor on this host (CPU µs per token event on loopback): write(2) 5.79, recvmsg(2) 5.29; a null system call 1.05\n"},
		{"two close CPUs", kfloor.Floor{Costs: cpu(0, 4*us, 4*us).Costs, PerCPU: []kfloor.CPUCosts{cpu(0, 4*us, 4*us), cpu(1, 4*us, 5*us)}},
			"Kernel floor on this host (CPU µs per token event on loopback): write(2) 4.00, recvmsg(2) 4.00; a null system call 1.00\n" +
				"  per CPU: cpu0 write(2) 4.00, recvmsg(2) 4.00, null system call 1.00; cpu1 write(2) 4.00, recvmsg(2) 5.00, null system call 1.00\n"},
		{"unequal CPUs", kfloor.Floor{Costs: cpu(0, 4*us, 4*us).Costs, PerCPU: []kfloor.CPUCosts{cpu(0, 4*us, 4*us), cpu(1, 6*us, 6*us)}},
			"Kernel floor on this host (CPU µs per token event on loopback): write(2) 4.00, recvmsg(2) 4.00; a null system call 1.00\n" +
				"  per CPU: cpu0 write(2) 4.00, recvmsg(2) 4.00, null system call 1.00; cpu1 write(2) 6.00, recvmsg(2) 6.00, null system call 1.00\n" +
				"  WARNING: an event costs the kernel 50% more on one CPU than on another: figures depend on the CPUs the processes run on (pin them with taskset to compare runs)\n"},
	}
	for _, tt := range floors {
		var b strings.Builder
		writeFloor(&b, &tt.f)
		if b.String() != tt.want {
			t.Errorf("%s: floor lines\n%s\nwant\n%s", tt.name, b.String(), tt.want)
		}
	}
}
