package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/argv"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/server"
)

// Options are the flags of `vllm bench sweep serve` (see AddFlags).
type Options struct {
	// ServeCmd, BenchCmd and AfterBenchCmd are the command lines of the
	// server, the benchmark and what runs after each benchmark.
	ServeCmd, BenchCmd, AfterBenchCmd string
	// ShowStdout shows each benchmark's console output.
	ShowStdout bool
	// ServerReadyTimeout is how long, in seconds, the server may take to
	// answer /health.
	ServerReadyTimeout int
	// ServeParams and BenchParams are the parameter files.
	ServeParams, BenchParams string
	// LinkVars are the linked serve and bench keys, "a=b,c=d".
	LinkVars string
	// OutputDir and ExperimentName place the results.
	OutputDir, ExperimentName string
	// NumRuns is the runs per combination; WarmupNumPrompts the prompts
	// of an unmeasured warm-up run per combination (0: none).
	NumRuns, WarmupNumPrompts int
	// ContinueOnError records failed runs and goes on; DryRun prints the
	// commands; Resume continues an experiment.
	ContinueOnError, DryRun, Resume bool
	// WorkloadVar and WorkloadIters are serve_workload's
	// --workload-var (request_rate or max_concurrency) and
	// --workload-iters.
	WorkloadVar   string
	WorkloadIters int
}

// UsageError is a bad flag or parameter file: the sweep never started.
type UsageError struct{ Err error }

// Error is the underlying error's text.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *UsageError) Unwrap() error { return e.Err }

// sweeper is one sweep in progress.
type sweeper struct {
	o        Options
	env      pipeline.Env
	expDir   string
	serveCmd []string
	benchCmd []string
	after    []string
	servers  *server.Manager
}

// Run runs a sweep: every serve combination, every bench combination that
// its --link-vars allow, --num-runs runs each, into
// OUTPUT_DIR/EXPERIMENT/SERVE--<name>-BENCH--<name>/run=<n>.json with a
// summary.json per combination and summary.csv over all runs.
func Run(ctx context.Context, o Options, env pipeline.Env) error {
	s, serveParams, benchParams, links, err := prepare(o, env)
	if err != nil {
		return &UsageError{err}
	}
	defer s.servers.Close()
	var all []*py.Object
	for _, sp := range serveParams {
		serveArgv := Apply(s.serveCmd, sp)
		for _, bp := range benchParams {
			if !Linked(links, sp, bp) {
				continue
			}
			runs, err := s.comb(ctx, serveArgv, sp, bp)
			if err != nil {
				return err
			}
			all = append(all, runs...)
		}
	}
	return s.finish(all)
}

// finish ends a sweep: with --dry-run it says where the results would
// go; otherwise it stops the server and writes summary.csv over all the
// runs, as pandas writes it.
func (s *sweeper) finish(all []*py.Object) error {
	if s.o.DryRun {
		fmt.Fprintf(s.env.Stdout, "Experiment will be saved at: %s\n", s.expDir)
		return nil
	}
	if err := s.servers.Close(); err != nil {
		return err
	}
	var csv bytes.Buffer
	if err := py.WriteFrameCSV(&csv, all); err != nil {
		return err
	}
	path := filepath.Join(s.expDir, "summary.csv")
	if err := report.WriteResultFile(path, csv.Bytes(), false); err != nil {
		return err
	}
	fmt.Fprintf(s.env.Stdout, "Summary of %d runs written to %s\n", len(all), path)
	return nil
}

// prepare checks the options and reads the parameter files.
func prepare(o Options, env pipeline.Env) (*sweeper, []*py.Object, []*py.Object, [][2]string, error) {
	if o.NumRuns < 1 {
		return nil, nil, nil, nil, fmt.Errorf("--num-runs must be at least 1, got %d", o.NumRuns)
	}
	if o.WarmupNumPrompts < 0 {
		return nil, nil, nil, nil, fmt.Errorf("--warmup-num-prompts must not be negative, got %d", o.WarmupNumPrompts)
	}
	s := &sweeper{o: o, env: env, servers: &server.Manager{Stderr: env.Stderr}}
	var err error
	if s.serveCmd, err = Split(o.ServeCmd); err != nil || len(s.serveCmd) == 0 {
		return nil, nil, nil, nil, fmt.Errorf("--serve-cmd: %v", orEmpty(err))
	}
	if s.benchCmd, err = Split(o.BenchCmd); err != nil || len(s.benchCmd) == 0 {
		return nil, nil, nil, nil, fmt.Errorf("--bench-cmd: %v", orEmpty(err))
	}
	if _, err := benchArgs(s.benchCmd); err != nil {
		return nil, nil, nil, nil, err
	}
	if s.after, err = Split(o.AfterBenchCmd); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("--after-bench-cmd: %v", err)
	}
	serveParams, err := LoadParams(o.ServeParams)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("--serve-params: %w", err)
	}
	benchParams, err := LoadParams(o.BenchParams)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("--bench-params: %w", err)
	}
	links, err := LinkVars(o.LinkVars)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	name := o.ExperimentName
	if name == "" {
		name = time.Now().Format("20060102_150405")
	}
	s.expDir = filepath.Join(o.OutputDir, name)
	_, statErr := os.Stat(s.expDir)
	switch {
	case !o.Resume && statErr == nil:
		return nil, nil, nil, nil, fmt.Errorf("cannot overwrite existing experiment_dir=%s (use --resume to continue it, or another -e/--experiment-name)", s.expDir)
	case o.Resume && errors.Is(statErr, fs.ErrNotExist):
		return nil, nil, nil, nil, fmt.Errorf("cannot resume from non-existent experiment_dir=%s", s.expDir)
	}
	return s, serveParams, benchParams, links, nil
}

// orEmpty is err, or "empty" for an empty command.
func orEmpty(err error) error {
	if err == nil {
		return errors.New("empty")
	}
	return err
}

// benchArgs returns the flags of a benchmark command: what follows
// "bench serve" ("vllm bench serve", "vbench bench serve") or
// "vbench serve".
func benchArgs(cmd []string) ([]string, error) {
	for i, w := range cmd {
		if w == "serve" && i > 0 && (cmd[i-1] == "bench" || filepath.Base(cmd[i-1]) == "vbench") {
			return cmd[i+1:], nil
		}
	}
	return nil, fmt.Errorf("--bench-cmd: want a vllm bench serve command (\"vllm bench serve ...\" or \"vbench serve ...\"), got %q", strings.Join(cmd, " "))
}

// comb runs one combination's warm-up and runs and returns the runs' data.
func (s *sweeper) comb(ctx context.Context, serveArgv []string, sp, bp *py.Object) ([]*py.Object, error) {
	return s.combAs(ctx, serveArgv, sp, bp, bp, nil)
}

// combAs is comb with the directory named after the combination named
// (and extra parts, such as serve_workload's "WL-", "request_rate=5"),
// and the runs made with the combination bp.
func (s *sweeper) combAs(ctx context.Context, serveArgv []string, sp, named, bp *py.Object, extra []string) ([]*py.Object, error) {
	var parts []string
	if sp.Len() > 0 {
		parts = append(parts, "SERVE-", Name(sp))
	}
	if named.Len() > 0 {
		parts = append(parts, "BENCH-", Name(named))
	}
	parts = append(parts, extra...)
	dir := s.expDir
	if len(parts) > 0 {
		dir = filepath.Join(s.expDir, sanitize(strings.Join(parts, "-")))
	}
	out := s.env.Stdout
	fmt.Fprintf(out, "[BEGIN BENCHMARK] serve %s, bench %s\n", paramsText(sp), paramsText(bp))
	if s.o.WarmupNumPrompts > 0 {
		warm := py.NewObject()
		for k, v := range bp.All() {
			warm.Set(k, v)
		}
		warm.Set("num_prompts", int64(s.o.WarmupNumPrompts))
		if _, err := s.run(ctx, serveArgv, sp, bp, warm, dir, "warmup.json", -1); err != nil {
			return nil, err
		}
	}
	var data []*py.Object
	for n := range s.o.NumRuns {
		d, err := s.run(ctx, serveArgv, sp, bp, bp, dir, "run="+strconv.Itoa(n)+".json", n)
		if err != nil {
			return nil, err
		}
		if d != nil {
			data = append(data, d)
		}
	}
	if s.o.DryRun {
		return nil, nil
	}
	if len(data) == 0 {
		fmt.Fprintln(out, "[NO SUCCESSFUL MEASURED RUNS]")
		return nil, nil
	}
	list := make([]any, len(data))
	for i, d := range data {
		list[i] = d
	}
	js, err := py.DumpsIndent(list, 4)
	if err != nil {
		return nil, err
	}
	if err := report.WriteResultFile(filepath.Join(dir, "summary.json"), js, false); err != nil {
		return nil, err
	}
	return data, nil
}

// paramsText shows a combination's parameters as JSON ("{}" for none).
func paramsText(o *py.Object) string {
	b, _ := py.Dumps(o)
	return string(b)
}

// run makes one benchmark run into dir/file (or reuses the file when it
// exists) and returns its data: the result with run_number and the serve
// and bench parameters merged in. With --continue-on-error a failed run
// writes its failure file and returns nil data and no error.
func (s *sweeper) run(ctx context.Context, serveArgv []string, sp, bp, applied *py.Object, dir, file string, n int) (*py.Object, error) {
	path := filepath.Join(dir, file)
	args := Apply(s.benchCmd, applied)
	args = append(args, "--percentile-metrics", "ttft,tpot,itl,e2el", "--save-result", "--result-dir", dir, "--result-filename", file)
	if s.o.DryRun {
		fmt.Fprintf(s.env.Stdout, "[RUN %d] %s -> %s\n", n, argv.Quote(args), path)
		return nil, nil
	}
	if _, err := os.Stat(path); err == nil {
		fmt.Fprintf(s.env.Stdout, "Found existing results.\n[SKIPPED BENCHMARK] %s\n", path)
		return merged(path, n, sp, bp, false)
	}
	err := s.bench(ctx, serveArgv, args)
	if err != nil {
		// A failed or interrupted run leaves no result for --resume to
		// take as done.
		_ = os.Remove(path)
		if !s.o.ContinueOnError || ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w (use --resume to continue)", path, err)
		}
		return nil, s.failure(dir, file, n, sp, bp, err)
	}
	d, err := merged(path, n, sp, bp, true)
	if n < 0 {
		return nil, err // the warm-up stays out of the summaries
	}
	return d, err
}

// bench runs one benchmark command line against the managed server.
func (s *sweeper) bench(ctx context.Context, serveArgv, args []string) error {
	flags, err := benchArgs(args)
	if err != nil {
		return err
	}
	pc, err := argv.ParseCommand(flags, argv.Options{})
	if err != nil {
		return err
	}
	sc := pc.Scenario
	sc.Target.Server = &scenario.Server{
		Command: serveArgv, ReadyURL: readyURL(serveArgv), ReadyTimeout: float64(s.o.ServerReadyTimeout),
		ResetCaches: len(s.after) == 0, AfterRun: s.after, StopGrace: 10, Log: "server.log",
	}
	if err := s.servers.Ensure(ctx, sc, s.expDir); err != nil {
		return err
	}
	runCtx, cancel := s.servers.Watch(ctx)
	env := s.env
	env.Argv = &pipeline.ArgvMode{Extras: pc.Extras}
	if !s.o.ShowStdout {
		env.Stdout = io.Discard
	}
	_, err = pipeline.Run(runCtx, sc, env)
	cancel()
	if died := s.servers.Died(); died != nil {
		return died
	}
	if err != nil {
		return err
	}
	_ = s.servers.AfterRun(ctx, sc) // a failure is a warning
	return nil
}

// merged reads a run's result, adds run_number and the serve and bench
// parameters (the bench ones last, as vLLM's sweep does), and, when save
// is set, writes it back with indent=4.
func merged(path string, n int, sp, bp *py.Object, save bool) (*py.Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := py.Loads(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	o, ok := v.(*py.Object)
	if !ok {
		return nil, fmt.Errorf("%s: not a result object", path)
	}
	o.Set("run_number", int64(n))
	for _, p := range []*py.Object{sp, bp} {
		for k, v := range p.All() {
			o.Set(k, v)
		}
	}
	if save {
		js, err := py.DumpsIndent(o, 4)
		if err != nil {
			return nil, err
		}
		if err := report.WriteResultFile(path, js, false); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// failure writes a failed run's <file>.failure.json (vLLM's
// --continue-on-error) and says so.
func (s *sweeper) failure(dir, file string, n int, sp, bp *py.Object, err error) error {
	o := py.NewObject()
	o.Set("run_number", int64(n))
	o.Set("error_type", errorType(err))
	o.Set("error", err.Error())
	o.Set("serve_overrides", sp)
	o.Set("bench_overrides", bp)
	js, jerr := py.DumpsIndent(o, 2)
	if jerr != nil {
		return jerr
	}
	path := filepath.Join(dir, strings.TrimSuffix(file, ".json")+".failure.json")
	fmt.Fprintf(s.env.Stderr, "Run failed (%v); recorded in %s\n", err, path)
	return report.WriteResultFile(path, append(js, '\n'), false)
}

// errorType names an error's kind for a failure file.
func errorType(err error) string {
	if errors.Is(err, server.ErrExited) {
		return "ServerExited"
	}
	return "RunError"
}

// readyURL is where a serve command answers /health, as vLLM's sweep finds
// it: --host (default localhost) and -p/--port (default 8000), also in
// their --name=value forms, of the command with its parameters applied.
func readyURL(argv []string) string {
	host, port := "localhost", "8000"
	for i, w := range argv {
		name, value, inline := strings.Cut(w, "=")
		if !inline {
			if i+1 >= len(argv) {
				continue
			}
			value = argv[i+1]
		}
		switch name {
		case "--host":
			host = value
		case "-p", "--port":
			port = value
		}
	}
	return "http://" + host + ":" + port + "/health"
}
