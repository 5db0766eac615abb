package sweep

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/py"
)

// defaultNumPrompts is vllm bench serve's --num-prompts default.
const defaultNumPrompts = 1000

// RunWorkload runs `vllm bench sweep serve_workload`: for every serve and
// bench combination, a serial run (max_concurrency 1 and the workload
// variable 1) and a batch run (both the dataset size) bound the workload,
// each estimated from its runs (request_rate: the request throughput;
// max_concurrency: the throughput times the mean E2EL), and up to
// --workload-iters − 2 rounded values evenly spaced between them are run
// next. Each level gets its own "-WL--<var>=<value>" directory.
func RunWorkload(ctx context.Context, o Options, env pipeline.Env) error {
	if o.WorkloadVar != "request_rate" && o.WorkloadVar != "max_concurrency" {
		return &UsageError{fmt.Errorf("--workload-var: want request_rate or max_concurrency, got %q", o.WorkloadVar)}
	}
	if o.WorkloadIters < 2 {
		return &UsageError{fmt.Errorf("--workload-iters must be at least 2, got %d", o.WorkloadIters)}
	}
	s, serveParams, benchParams, links, err := prepare(o, env)
	if err != nil {
		return &UsageError{err}
	}
	for _, bp := range benchParams {
		if _, ok := bp.Get(o.WorkloadVar); ok {
			return &UsageError{fmt.Errorf("--bench-params must not set the workload variable %s", o.WorkloadVar)}
		}
	}
	defer s.servers.Close()
	var all []*py.Object
	for _, sp := range serveParams {
		serveArgv := Apply(s.serveCmd, sp)
		for _, bp := range benchParams {
			if !Linked(links, sp, bp) {
				continue
			}
			size := datasetSize(bp, s.benchCmd)
			level := func(value int64, concurrency bool) ([]*py.Object, error) {
				run := py.NewObject()
				for k, v := range bp.All() {
					run.Set(k, v)
				}
				if concurrency {
					run.Set("max_concurrency", value)
				}
				run.Set(o.WorkloadVar, value)
				return s.combAs(ctx, serveArgv, sp, bp, run, []string{"WL-", o.WorkloadVar + "=" + strconv.FormatInt(value, 10)})
			}
			serial, err := level(1, true)
			if err != nil {
				return err
			}
			batch, err := level(size, true)
			if err != nil {
				return err
			}
			if o.DryRun {
				fmt.Fprintln(env.Stdout, "Omitting intermediate Workload iterations.")
				continue
			}
			lo := math.Ceil(estimate(serial, o.WorkloadVar))
			hi := math.Floor(estimate(batch, o.WorkloadVar))
			fmt.Fprintf(env.Stdout, "Workload %s from %s (serial) to %s (batch)\n", o.WorkloadVar, strconv.FormatFloat(lo, 'g', -1, 64), strconv.FormatFloat(hi, 'g', -1, 64))
			var mid []*py.Object
			for _, v := range between(lo, hi, o.WorkloadIters) {
				runs, err := level(v, false)
				if err != nil {
					return err
				}
				mid = append(mid, runs...)
			}
			all = append(append(append(all, serial...), mid...), batch...)
		}
	}
	return s.finish(all)
}

// datasetSize is the number of prompts of a bench combination: its
// num_prompts, else the command's --num-prompts, else vLLM's default.
func datasetSize(bp *py.Object, cmd []string) int64 {
	if v, ok := bp.Get("num_prompts"); ok {
		if n, ok := number(v); ok {
			return int64(n)
		}
	}
	for i, w := range cmd {
		var text string
		switch {
		case w == "--num-prompts" && i+1 < len(cmd):
			text = cmd[i+1]
		case len(w) > len("--num-prompts=") && w[:len("--num-prompts=")] == "--num-prompts=":
			text = w[len("--num-prompts="):]
		default:
			continue
		}
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n
		}
	}
	return defaultNumPrompts
}

// estimate is the workload a level's runs sustained: their mean request
// throughput (request_rate), or that times their mean E2EL in seconds
// (max_concurrency: Little's law).
func estimate(runs []*py.Object, variable string) float64 {
	var sum float64
	n := 0
	for _, r := range runs {
		tput, ok := floatOf(r, "request_throughput")
		if !ok {
			continue
		}
		if variable == "max_concurrency" {
			e2el, ok := floatOf(r, "mean_e2el_ms")
			if !ok {
				continue
			}
			tput *= e2el / 1000
		}
		sum += tput
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// floatOf reads a numeric member.
func floatOf(o *py.Object, key string) (float64, bool) {
	v, ok := o.Get(key)
	if !ok {
		return 0, false
	}
	return number(v)
}

// between is sorted(set(map(round, numpy.linspace(lo, hi, n)[1:-1]))):
// the inner points of n evenly spaced values, rounded half to even as
// Python's round does, without repeats.
func between(lo, hi float64, n int) []int64 {
	if math.IsNaN(lo) || math.IsNaN(hi) || n < 3 {
		return nil
	}
	var out []int64
	step := (hi - lo) / float64(n-1)
	for i := 1; i < n-1; i++ {
		v := int64(math.RoundToEven(lo + float64(i)*step))
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}
