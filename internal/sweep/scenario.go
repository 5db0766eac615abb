package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/vbench/vbench/internal/argv"
	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/scenario"
)

// AddFlags defines vllm bench sweep serve's flags on fs, into o.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.ServeCmd, "serve-cmd", "", "the command that runs the server, e.g. 'vllm serve MODEL' (required)")
	fs.StringVar(&o.BenchCmd, "bench-cmd", "", "the benchmark: a vllm bench serve command line (required)")
	fs.StringVar(&o.AfterBenchCmd, "after-bench-cmd", "", "run after each benchmark instead of resetting the server's caches")
	fs.BoolVar(&o.ShowStdout, "show-stdout", false, "show each benchmark's console output")
	fs.IntVar(&o.ServerReadyTimeout, "server-ready-timeout", 300, "seconds the server may take to answer /health")
	fs.StringVar(&o.ServeParams, "serve-params", "", "JSON file of server parameter combinations")
	fs.StringVar(&o.BenchParams, "bench-params", "", "JSON file of benchmark parameter combinations")
	fs.StringVar(&o.LinkVars, "link-vars", "", "serve_key=bench_key,...: run only combinations where the two are equal")
	fs.StringVarP(&o.OutputDir, "output-dir", "o", "results", "the main results directory")
	fs.StringVarP(&o.ExperimentName, "experiment-name", "e", "", "the experiment's directory under --output-dir (default: the start time, YYYYMMDD_HHMMSS)")
	fs.IntVar(&o.NumRuns, "num-runs", 3, "runs per combination")
	fs.IntVar(&o.WarmupNumPrompts, "warmup-num-prompts", 0, "a warm-up run of this many prompts per combination, saved as warmup.json and left out of the summaries")
	fs.BoolVar(&o.ContinueOnError, "continue-on-error", false, "record a failed run in run=<n>.failure.json and go on")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the commands without running them")
	fs.BoolVar(&o.Resume, "resume", false, "continue an experiment: runs whose result exists are not run again")
}

// Scenario is the vbench scenario of a vllm bench sweep serve command
// line: the bench command's scenario, the serve command as target.server,
// every linked (serve, bench) combination as one point of a zip sweep (a
// serve parameter as target.server.args.<key>, a bench parameter as the
// scenario fields its flag sets), --num-runs as a repeat with the same
// seed, -o/-e as the result directory, and what vLLM's sweep adds to
// every bench command (--percentile-metrics ttft,tpot,itl,e2el
// --save-result). A combination that leaves out
// a key the others set cannot be a zip point, and is an error.
func Scenario(o Options) (*scenario.Scenario, error) {
	serveCmd, err := Split(o.ServeCmd)
	if err != nil || len(serveCmd) == 0 {
		return nil, fmt.Errorf("--serve-cmd: %v", orEmpty(err))
	}
	benchCmd, err := Split(o.BenchCmd)
	if err != nil || len(benchCmd) == 0 {
		return nil, fmt.Errorf("--bench-cmd: %v", orEmpty(err))
	}
	after, err := Split(o.AfterBenchCmd)
	if err != nil {
		return nil, fmt.Errorf("--after-bench-cmd: %v", err)
	}
	serveParams, err := LoadParams(o.ServeParams)
	if err != nil {
		return nil, fmt.Errorf("--serve-params: %w", err)
	}
	benchParams, err := LoadParams(o.BenchParams)
	if err != nil {
		return nil, fmt.Errorf("--bench-params: %w", err)
	}
	links, err := LinkVars(o.LinkVars)
	if err != nil {
		return nil, err
	}
	parse := func(bp *py.Object) (map[string]json.RawMessage, *scenario.Scenario, error) {
		flags, err := benchArgs(Apply(benchCmd, bp))
		if err != nil {
			return nil, nil, err
		}
		pc, err := argv.ParseCommand(flags, argv.Options{})
		if err != nil {
			return nil, nil, fmt.Errorf("--bench-cmd with %s: %w", paramsText(bp), err)
		}
		leaves, err := leavesOf(pc.Scenario)
		return leaves, pc.Scenario, err
	}
	baseLeaves, base, err := parse(py.NewObject())
	if err != nil {
		return nil, err
	}
	benchLeaves := make([]map[string]json.RawMessage, len(benchParams))
	changed := map[string]bool{}
	for i, bp := range benchParams {
		if benchLeaves[i], _, err = parse(bp); err != nil {
			return nil, err
		}
		for path, v := range benchLeaves[i] {
			if !bytes.Equal(v, baseLeaves[path]) {
				changed[path] = true
			}
		}
	}
	serveKeys := keySet(serveParams[0])
	for _, sp := range serveParams[1:] {
		if !slices.Equal(keySet(sp), serveKeys) {
			return nil, fmt.Errorf("--serve-params: the combinations set different parameters (%v and %v): a vbench sweep needs every point to set the same ones", serveKeys, keySet(sp))
		}
	}
	axes := map[string][]json.RawMessage{}
	points := 0
	var lastServe *py.Object
	lastBench := -1
	for _, sp := range serveParams {
		for i, bp := range benchParams {
			if !Linked(links, sp, bp) {
				continue
			}
			points++
			lastServe, lastBench = sp, i
			for _, k := range serveKeys {
				v, _ := sp.Get(k)
				b, err := py.Dumps(v)
				if err != nil {
					return nil, err
				}
				path := "target.server.args." + cueLabel(k)
				axes[path] = append(axes[path], b)
			}
			for path := range changed {
				v, ok := benchLeaves[i][path]
				if !ok {
					v = baseLeaves[path]
				}
				if v == nil {
					return nil, fmt.Errorf("--bench-params %s: its flags leave out %s, which other combinations set", paramsText(bp), path)
				}
				axes[path] = append(axes[path], v)
			}
		}
	}
	if points == 0 {
		return nil, fmt.Errorf("--link-vars leaves no combination to run")
	}
	sc := base
	if points == 1 { // one point: its values, and no sweep
		if _, sc, err = parse(benchParams[lastBench]); err != nil {
			return nil, err
		}
	}
	sc.Target.Server = &scenario.Server{Command: serveCmd, ReadyURL: readyURL(serveCmd),
		ReadyTimeout: float64(o.ServerReadyTimeout), ResetCaches: len(after) == 0, AfterRun: after, StopGrace: 10, Log: "server.log"}
	if points == 1 && len(serveKeys) > 0 {
		sc.Target.Server.Args = map[string]json.RawMessage{}
		for _, k := range serveKeys {
			v, _ := lastServe.Get(k)
			b, err := py.Dumps(v)
			if err != nil {
				return nil, err
			}
			sc.Target.Server.Args[k] = b
		}
	}
	if points > 1 && len(axes) > 0 {
		sc.Sweep = &scenario.Sweep{Axes: axes, Mode: "zip"}
	}
	if o.NumRuns > 1 {
		sc.Repeat = &scenario.Repeat{Count: o.NumRuns, FixedSeed: true}
	}
	name := o.ExperimentName
	if name == "" {
		name = "sweep"
	}
	sc.Output.ResultDir = filepath.Join(o.OutputDir, name)
	// What vLLM's sweep adds to every bench command.
	sc.Metrics.PercentileMetrics = []string{"ttft", "tpot", "itl", "e2el"}
	sc.Output.SaveResult = true
	data, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	return scenario.LoadBytes("vllm-bench-sweep.json", data, scenario.Options{})
}

// keySet is a combination's keys (but _benchmark_name), sorted.
func keySet(o *py.Object) []string {
	var keys []string
	for k := range o.All() {
		if k != nameKey {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// leavesOf flattens a scenario's JSON into its leaf fields (objects are
// walked, anything else is a leaf), keyed by dotted path.
func leavesOf(sc *scenario.Scenario) (map[string]json.RawMessage, error) {
	data, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, m[k])
			}
			return
		}
		b, _ := json.Marshal(v)
		out[prefix] = b
	}
	walk("", v)
	return out, nil
}

// cueLabel writes a map key as a CUE path label: as is when it is an
// identifier, else quoted (a dotted vLLM key such as
// "compilation_config.mode" is one argument, not a nested field).
func cueLabel(k string) string {
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return strconv.Quote(k)
		}
	}
	return k
}
