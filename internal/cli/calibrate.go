package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/calibrate"
)

const calibrateDoc = `Measure vbench's own timing error and overhead on this host.

calibrate starts ` + "`vbench sim`" + ` as a separate process on loopback (or uses the
simulator at --target), then runs a closed-loop benchmark at each
--concurrency with a known latency model (--ttft, --itl, --output-len),
through the same client code as a real run. For each concurrency it prints
the reported mean/p99 TTFT and mean/std/p99 ITL next to the truth and the
error, split into the part the simulator's own lateness explains (scraped
from its /metrics before and after the step) and the part it does not (the
client's and the network's); then the client's CPU seconds per 1000 token
events, its peak RSS, GC and its send lag (release time minus intended
time). --json writes the same numbers.

With --target, the latency flags must match the simulator's settings (and
its prefill cost must be 0), since they are the truth compared against.
Each step lasts about --duration (each stream sends requests back to back),
or sends --requests requests. Request i is due at i/c of one request's
duration (c the concurrency), so the c streams are evenly phased and their
token events spread in time, as independent users' are; --burst makes every
request due at once, as vLLM's --request-rate inf does, and so measures the
burst of simultaneous starts too. Measurements on a loaded host are noisy:
repeat them and compare medians.

The simulator calibrate starts runs at a lower CPU priority (--sim-nice,
default 5): when the host's CPUs are saturated, the simulator is then the
one that runs late (that lateness is measured and shown in the simulator
column), and the client, the instrument being calibrated, runs as it would
beside a server on another machine. --sim-nice 0 runs both at the same
priority.`

const calibrateExamples = `  vbench calibrate
  vbench calibrate --concurrency 100,1000 --duration 20s --json calib.json
  vbench sim --addr 127.0.0.1:9000 --ttft 50ms --itl 10ms &
  vbench calibrate --target http://127.0.0.1:9000 --concurrency 1,4 --requests 8`

func newCalibrateCmd(p Process) *cobra.Command {
	cfg := calibrate.DefaultConfig()
	var jsonPath string
	cmd := &cobra.Command{
		Use:     "calibrate",
		Short:   "Measure the client's timing error against a simulator",
		Long:    calibrateDoc,
		Example: calibrateExamples,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cfg.Validate(); err != nil {
				return usageErr(err)
			}
			if cfg.Target != "" && cmd.Flags().Changed("sim-nice") {
				return usageErr(errors.New("--sim-nice applies only to the simulator calibrate starts, not to --target"))
			}
			cfg.Out, cfg.Progress = p.Stdout, p.Stderr
			rep, err := calibrate.Run(cmd.Context(), cfg)
			if jsonPath != "" && rep != nil && len(rep.Steps) > 0 {
				if werr := calibrate.WriteJSON(jsonPath, rep); werr != nil {
					return failErr(werr)
				}
			}
			if err != nil {
				return failErr(err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Target, "target", "", "base URL of a running vbench sim (default: start one as a child process)")
	f.IntSliceVar(&cfg.Concurrency, "concurrency", cfg.Concurrency, "closed-loop concurrencies, one step each")
	f.DurationVar(&cfg.TTFT, "ttft", cfg.TTFT, "simulated time to first token (the truth)")
	f.DurationVar(&cfg.ITL, "itl", cfg.ITL, "simulated inter-token latency (the truth)")
	f.IntVar(&cfg.OutputLen, "output-len", cfg.OutputLen, "output tokens per request")
	f.DurationVar(&cfg.Duration, "duration", cfg.Duration, "approximate length of each step")
	f.IntVar(&cfg.Requests, "requests", 0, "requests per step (overrides --duration)")
	f.IntVar(&cfg.SimNice, "sim-nice", cfg.SimNice, "niceness (0-19) of the simulator calibrate starts: on a shared host it, not the client, then absorbs CPU contention, and its lateness is measured and set apart (Linux; 0 = same priority as the client)")
	f.BoolVar(&cfg.Burst, "burst", false, "start all streams of a step at once (default: stagger them evenly over one request's duration)")
	f.StringVar(&jsonPath, "json", "", "also write the results to this JSON file (atomically)")
	f.StringVar(&cfg.Executable, "sim-exe", "", "vbench executable to start the simulator with (default: this one)")
	_ = f.MarkHidden("sim-exe")
	return cmd
}
