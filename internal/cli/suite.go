package cli

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/experiment"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

const testDoc = `Run serving regression suites: testscript (txtar) files that run vbench
and assert on its results, as vbench's own regression suites do.

Each suite is one .txtar file: a script of commands, then the files it
uses (scenarios, datasets, baseline results) as txtar sections. Besides
testscript's own commands (exec, stdout, stderr, cmp, exists, env, ...),
a suite has:

  vbench ARGS...            run vbench in-process (! vbench ... expects failure)
  sim [--ttft D] [--itl D] [--fault SPEC]... [--max-conns N] ...
                            start a simulated server (model vbench-sim,
                            tokenizer o200k_base; see the README); sets
                            $SIM_URL
  metric FILE KEY OP VALUE  a result's number KEY (a dotted path into the
                            JSON) compared with VALUE: < <= > >= == !=
  regress BASE NEW KEY max-increase|max-decrease PCT
                            vbench compare's gate between two results
  keys FILE vllm            the result has exactly vLLM's keys, in its order

A suite sees only the environment variables given with --env NAME (and
testscript's own, and $SIM_URL); one it uses that was not given fails it
before it runs, and the values of those given never appear in the output.`

const testExamples = `  vbench test examples/suites/
  vbench test examples/suites/smoke.txtar -v
  vbench test suites/ --env VBENCH_URL --env OPENAI_API_KEY --junit report.xml`

func newTestCmd(p Process) *cobra.Command {
	var o suiteOptions
	cmd := &cobra.Command{
		Use:     "test [DIR|FILE.txtar]...",
		Short:   "Run serving regression suites (testscript files)",
		Long:    testDoc,
		Example: testExamples,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSuites(p, args, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.run, "run", "", "run only the suites whose name matches `REGEXP`")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "print every suite's log, not only the failures'")
	f.BoolVar(&o.update, "update", false, "rewrite a suite's files that cmp compares with files the suite wrote")
	f.StringVar(&o.junit, "junit", "", "also write a JUnit XML report to `FILE`")
	f.StringArrayVar(&o.env, "env", nil, "pass the environment variable `NAME` to the suites (repeatable); its value never appears in the output")
	return cmd
}

// suiteOptions are vbench test's flags.
type suiteOptions struct {
	run     string
	verbose bool
	update  bool
	junit   string
	env     []string
}

// suiteResult is one suite's outcome.
type suiteResult struct {
	name    string
	file    string
	failed  bool
	skipped bool
	log     string
	took    time.Duration
}

func runSuites(p Process, args []string, o suiteOptions) error {
	var filter *regexp.Regexp
	if o.run != "" {
		var err error
		if filter, err = regexp.Compile(o.run); err != nil {
			return usageErr(fmt.Errorf("--run %q: %w", o.run, err))
		}
	}
	files, err := suiteFiles(args)
	if err != nil {
		return usageErr(err)
	}
	if o.update && len(o.env) > 0 {
		return usageErr(errors.New("--update with --env: the files --update rewrites could hold a value passed with --env; update without it"))
	}
	env := map[string]string{}
	var values []string
	for _, name := range o.env {
		v := p.Getenv(name)
		if v == "" {
			return usageErr(fmt.Errorf("--env %s: the variable is not set (or empty)", name))
		}
		env[name] = v
		values = append(values, v)
	}
	// Longest first: a value that contains another is replaced whole.
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	var secrets []string
	for _, v := range values {
		secrets = append(secrets, v, "<redacted>")
	}
	redact := strings.NewReplacer(secrets...)
	var results []suiteResult
	for _, file := range files {
		if p.Context != nil && p.Context.Err() != nil {
			break // interrupted: the suites run so far are reported
		}
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		if filter != nil && !filter.MatchString(name) {
			continue
		}
		if missing := undefinedVars(file, env); len(missing) > 0 {
			results = append(results, suiteResult{name: name, file: file, failed: true,
				log: fmt.Sprintf("%s uses $%s, which vbench test does not pass: add --env %s (suites see only the variables given with --env)\n",
					file, missing[0], missing[0])})
			continue
		}
		start := time.Now()
		r := &suiteT{verbose: o.verbose}
		func() {
			defer func() {
				if e := recover(); e != nil && e != errSuiteFailed && e != errSuiteSkipped {
					// A panic ends this suite only, as its failure.
					r.failed = true
					r.log.WriteString(fmt.Sprintf("the suite panicked: %v\n%s", e, debug.Stack()))
				}
			}()
			testscript.RunT(r, suiteParams(p, file, env, o.update))
		}()
		results = append(results, suiteResult{name: name, file: file, failed: r.failed, skipped: r.skipped && !r.failed,
			log: redact.Replace(r.log.String()), took: time.Since(start)})
	}
	if len(results) == 0 {
		return usageErr(errors.New("no suite to run (no .txtar file, or --run matched none)"))
	}
	failed, skipped := 0, 0
	for _, r := range results {
		status := "PASS"
		switch {
		case r.failed:
			status = "FAIL"
			failed++
		case r.skipped:
			status = "SKIP"
			skipped++
		}
		if r.failed || o.verbose {
			fmt.Fprint(p.Stdout, indent(r.log))
		}
		fmt.Fprintf(p.Stdout, "%s %s (%.2fs)\n", status, r.name, r.took.Seconds())
	}
	if o.junit != "" {
		b, err := junitXML(results)
		if err == nil {
			err = report.WriteResultFile(o.junit, b, false)
		}
		if err != nil {
			return failErr(fmt.Errorf("--junit: %w", err))
		}
	}
	if failed > 0 {
		return &exitError{code: ExitFailed, err: fmt.Errorf("%d of %d suites failed", failed, len(results))}
	}
	if p.Context != nil && p.Context.Err() != nil {
		return failErr(fmt.Errorf("interrupted after %d of %d suites", len(results), len(files)))
	}
	fmt.Fprintf(p.Stdout, "ok: %d suites passed, %d skipped\n", len(results)-skipped, skipped)
	return nil
}

// suiteFiles expands the arguments: a directory's .txtar files, sorted,
// and files as given.
func suiteFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, errors.Unwrap(err))
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		m, err := filepath.Glob(filepath.Join(a, "*.txtar"))
		if err != nil {
			return nil, err
		}
		sort.Strings(m)
		files = append(files, m...)
	}
	return files, nil
}

// suiteVars are the variables a suite has without --env: testscript's
// own, and what vbench test's commands set.
var suiteVars = []string{"WORK", "HOME", "TMPDIR", "PATH", "devnull", "exe", "GOTRACEBACK", "SIM_URL", "HF_HOME"}

// varRef finds $NAME and ${NAME} in a script.
var varRef = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)

// undefinedVars returns the variables file's script uses that neither
// --env (given), testscript, vbench test's commands nor the script's own
// env commands define.
func undefinedVars(file string, given map[string]string) []string {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil // the run reports it
	}
	script := string(data)
	if i := strings.Index(script, "\n-- "); i >= 0 {
		script = script[:i]
	}
	defined := map[string]bool{}
	for _, line := range strings.Split(script, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "env" {
			for _, kv := range f[1:] {
				if k, _, ok := strings.Cut(kv, "="); ok {
					defined[k] = true
				}
			}
		}
	}
	var out []string
	for _, line := range strings.Split(script, "\n") {
		for _, m := range varRef.FindAllStringSubmatch(expandable(line), -1) {
			name := m[1]
			if _, ok := given[name]; ok || defined[name] || slices.Contains(suiteVars, name) || slices.Contains(out, name) {
				continue
			}
			out = append(out, name)
		}
	}
	return out
}

// expandable is the part of a script line testscript expands variables
// in: up to an unquoted # (a comment), without single-quoted text, and
// with $$ (a literal $) dropped.
func expandable(line string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '#':
			return b.String()
		case c == '$' && i+1 < len(line) && line[i+1] == '$':
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// suiteParams are the testscript parameters of one suite.
func suiteParams(p Process, file string, env map[string]string, update bool) testscript.Params {
	return testscript.Params{
		Files:         []string{file},
		UpdateScripts: update,
		Setup: func(e *testscript.Env) error {
			for k, v := range env {
				e.Setenv(k, v)
			}
			e.Setenv("HF_HOME", filepath.Join(e.WorkDir, ".hf"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"vbench":  suiteVbench(p),
			"sim":     suiteSim,
			"metric":  suiteMetric,
			"regress": suiteRegress,
			"keys":    suiteKeys,
		},
	}
}

// suiteVbench runs vbench in-process with the suite's environment and
// working directory.
func suiteVbench(p Process) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if dir, err := os.Getwd(); err == nil {
			defer func() { _ = os.Chdir(dir) }()
		}
		ts.Check(os.Chdir(ts.MkAbs(".")))
		code := Main(args, Process{Stdin: strings.NewReader(""), Stdout: ts.Stdout(), Stderr: ts.Stderr(),
			Getenv: ts.Getenv, Context: p.Context})
		switch {
		case neg && code == 0:
			ts.Fatalf("vbench %s succeeded, and should have failed", strings.Join(args, " "))
		case !neg && code != 0:
			ts.Fatalf("vbench %s: exit %d", strings.Join(args, " "), code)
		}
	}
}

// suiteSim starts a simulated server for the suite and sets $SIM_URL.
func suiteSim(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: sim [--ttft D] [--itl D] [--fault SPEC]... [--max-conns N] ...")
	}
	cfg, err := SimFlags(args, nil)
	if err != nil {
		ts.Fatalf("sim: %v", err)
	}
	srv, err := sim.Start(cfg, "127.0.0.1:0")
	ts.Check(err)
	ts.Setenv("SIM_URL", srv.URL())
	ts.Defer(func() { _ = srv.Close() })
}

// SimFlags is the simulator configuration of a suite's sim command (and of
// vbench's own testscript's simserve), from flag-value pairs: --ttft,
// --itl, --jitter, --prefill-per-token, --cached-prefill-per-token (Go
// durations), --fault SPEC (repeatable), --max-conns, --fail-every,
// --spec-decode-tokens, --spec-decode-acceptance, --prefix-cache-blocks,
// --reasoning-tokens (numbers), --model, --lora (comma-separated
// modules), --profiler off, --tokenizer (a built-in encoding, "" for the
// word tokenizer; default o200k_base), and the flags of extra. The model
// is vbench-sim.
func SimFlags(args []string, extra map[string]func(*sim.Config, string) error) (sim.Config, error) {
	cfg := sim.DefaultConfig()
	cfg.Model = "vbench-sim"
	tok := "o200k_base"
	for i := 0; i < len(args); i += 2 {
		if i+1 >= len(args) {
			return cfg, fmt.Errorf("%s needs a value", args[i])
		}
		v := args[i+1]
		var err error
		switch args[i] {
		case "--ttft":
			cfg.TTFT, err = time.ParseDuration(v)
		case "--itl":
			cfg.ITL, err = time.ParseDuration(v)
		case "--jitter":
			cfg.Jitter, err = time.ParseDuration(v)
		case "--prefill-per-token":
			cfg.PrefillPerToken, err = time.ParseDuration(v)
		case "--cached-prefill-per-token":
			var d time.Duration
			d, err = time.ParseDuration(v)
			cfg.CachedPrefillPerToken = &d
		case "--fault":
			var f sim.Fault
			if f, err = sim.ParseFault(v); err == nil {
				cfg.Faults = append(cfg.Faults, f)
			}
		case "--max-conns":
			cfg.MaxConns, err = strconv.Atoi(v)
		case "--fail-every":
			cfg.FailEvery, err = strconv.Atoi(v)
		case "--spec-decode-tokens":
			cfg.SpecDecodeTokens, err = strconv.Atoi(v)
		case "--spec-decode-acceptance":
			cfg.SpecDecodeAcceptance, err = strconv.ParseFloat(v, 64)
		case "--prefix-cache-blocks":
			cfg.PrefixCacheBlocks, err = strconv.Atoi(v)
		case "--reasoning-tokens":
			cfg.ReasoningTokens, err = strconv.Atoi(v)
		case "--model":
			cfg.Model = v
		case "--lora":
			cfg.LoRAModules = strings.Split(v, ",")
		case "--profiler":
			cfg.NoProfiler = v == "off"
		case "--tokenizer":
			tok = v
		default:
			set, ok := extra[args[i]]
			if !ok {
				return cfg, fmt.Errorf("unknown flag %s", args[i])
			}
			err = set(&cfg, v)
		}
		if err != nil {
			return cfg, fmt.Errorf("%s %s: %w", args[i], v, err)
		}
	}
	if tok != "" {
		t, err := tokenizer.Builtin(tok)
		if err != nil {
			return cfg, fmt.Errorf("--tokenizer %s: %w", tok, err)
		}
		cfg.Tokenizer = pipeline.SimTokenizer(t)
	}
	return cfg, nil
}

// suiteMetric is metric FILE KEY OP VALUE.
func suiteMetric(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: metric FILE KEY OP VALUE (OP one of < <= > >= == !=)")
	}
	file, key, op, want := args[0], args[1], args[2], args[3]
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(file)), &doc); err != nil {
		ts.Fatalf("%s: not JSON: %v", file, err)
	}
	got, err := jsonNumber(doc, key)
	if err != nil {
		ts.Fatalf("%s: %s: %v", file, key, err)
	}
	bound, err := strconv.ParseFloat(want, 64)
	if err != nil {
		ts.Fatalf("metric: VALUE %q is not a number", want)
	}
	var ok bool
	switch op {
	case "<":
		ok = got < bound
	case "<=":
		ok = got <= bound
	case ">":
		ok = got > bound
	case ">=":
		ok = got >= bound
	case "==":
		ok = got == bound
	case "!=":
		ok = got != bound
	default:
		ts.Fatalf("metric: OP %q: want one of < <= > >= == !=", op)
	}
	if ok == neg {
		not := ""
		if neg {
			not = "not "
		}
		ts.Fatalf("%s: %s = %s, want %s%s %s", file, key, strconv.FormatFloat(got, 'g', -1, 64), not, op, want)
	}
}

// jsonNumber is the number at a dotted path (keys, and list indexes) in
// doc.
func jsonNumber(doc any, path string) (float64, error) {
	v := doc
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[part]; !ok {
				return 0, errors.New("no such key")
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return 0, fmt.Errorf("%q is no index of a list of %d", part, len(x))
			}
			v = x[i]
		default:
			return 0, fmt.Errorf("%q: not inside an object or a list", part)
		}
	}
	f, ok := v.(float64)
	if !ok {
		return 0, fmt.Errorf("is %v, not a number", v)
	}
	return f, nil
}

// suiteRegress is regress BASE NEW KEY max-increase|max-decrease PCT:
// vbench compare's gate between two results.
func suiteRegress(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 5 || (args[3] != "max-increase" && args[3] != "max-decrease") {
		ts.Fatalf("usage: regress BASE.json NEW.json KEY max-increase|max-decrease PCT")
	}
	limit := args[4]
	if !strings.HasSuffix(limit, "%") {
		limit += "%"
	}
	g := scenario.Gate{Metric: args[2]}
	if args[3] == "max-increase" {
		g.MaxIncrease = limit
	} else {
		g.MaxDecrease = limit
	}
	sum, err := experiment.CompareFiles([]string{ts.MkAbs(args[0]), ts.MkAbs(args[1])}, experiment.CompareOptions{Gates: []scenario.Gate{g}})
	if err != nil {
		ts.Fatalf("regress: %v", err)
	}
	var b strings.Builder
	_ = report.WriteExperimentConsole(&b, sum)
	gerr := experiment.GateError(sum)
	switch {
	case gerr != nil && !neg:
		ts.Fatalf("%s → %s: %s %s %s: %v\n%s", args[0], args[1], args[2], args[3], limit, gerr, b.String())
	case gerr == nil && neg:
		ts.Fatalf("%s → %s: %s stayed within %s %s, and should not have", args[0], args[1], args[2], args[3], limit)
	}
	fmt.Fprint(ts.Stdout(), b.String())
}

// errSuiteFailed and errSuiteSkipped end a suite's run (suiteT).
var (
	errSuiteFailed  = errors.New("suite failed")
	errSuiteSkipped = errors.New("suite skipped")
)

// suiteT is the testscript.T of one suite outside go test, as go-internal's
// testscript command has: it keeps the log and whether the suite failed.
type suiteT struct {
	verbose bool
	mu      sync.Mutex
	log     strings.Builder
	failed  bool
	skipped bool
}

// Skip ends the suite as skipped.
func (t *suiteT) Skip(args ...any) {
	t.Log(args...)
	t.mu.Lock()
	t.skipped = true
	t.mu.Unlock()
	panic(errSuiteSkipped)
}

// Fatal logs args and ends the suite as failed.
func (t *suiteT) Fatal(args ...any) {
	t.Log(args...)
	t.FailNow()
}

// Parallel does nothing: suites run one at a time.
func (t *suiteT) Parallel() {}

// Log appends args to the suite's log.
func (t *suiteT) Log(args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	msg := fmt.Sprint(args...)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	t.log.WriteString(msg)
}

// FailNow ends the suite as failed.
func (t *suiteT) FailNow() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
	panic(errSuiteFailed)
}

// Run runs the suite's script.
func (t *suiteT) Run(_ string, f func(testscript.T)) {
	defer func() {
		if e := recover(); e != nil && e != errSuiteFailed && e != errSuiteSkipped {
			panic(e)
		}
	}()
	f(t)
}

// Verbose reports -v.
func (t *suiteT) Verbose() bool { return t.verbose }

// indent indents a suite's log for the console.
func indent(s string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// junit is a JUnit XML report: one testsuite, a testcase per suite.
type junit struct {
	XMLName  xml.Name    `xml:"testsuites"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Suites   []junitRoot `xml:"testsuite"`
}

type junitRoot struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitFailure `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// junitXML renders results as JUnit XML.
func junitXML(results []suiteResult) ([]byte, error) {
	root := junitRoot{Name: "vbench test", Tests: len(results)}
	var total time.Duration
	for _, r := range results {
		c := junitCase{Name: r.name, ClassName: "vbench.suites", Time: fmt.Sprintf("%.3f", r.took.Seconds())}
		switch {
		case r.failed:
			root.Failures++
			c.Failure = &junitFailure{Message: lastLine(r.log), Text: r.log}
		case r.skipped:
			c.Skipped = &junitFailure{Message: lastLine(r.log)}
		default:
			c.SystemOut = r.log
		}
		root.Cases = append(root.Cases, c)
		total += r.took
	}
	root.Time = fmt.Sprintf("%.3f", total.Seconds())
	b, err := xml.MarshalIndent(junit{Tests: root.Tests, Failures: root.Failures, Suites: []junitRoot{root}}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

// lastLine is the last non-empty line of s (a failure's message).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// suiteKeys is keys FILE vllm: the result's top-level keys are exactly the
// keys vllm bench serve writes, in its order (see report.BuildResult):
// the header, the user's metadata, the load, the generation or pooling
// body (with or without the detailed arrays, all or none), the optional
// groups (probe, ramp-up events, spec decode, diffusion), then each
// metric's mean, median, std and percentiles; no "vbench" object.
func suiteKeys(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || args[1] != "vllm" {
		ts.Fatalf("usage: keys FILE vllm")
	}
	keys, err := report.TopKeys([]byte(ts.ReadFile(args[0])))
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	err = matchVLLMKeys(keys)
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s: not vLLM's keys: %v\nkeys: %q", args[0], err, keys)
	case err == nil && neg:
		ts.Fatalf("%s: has exactly vLLM's keys, and should not", args[0])
	}
}

// vllmKeyGroups are the runs of keys vLLM writes after the header and the
// metadata, in order: each run is required or optional, and an optional
// run is there whole or not at all.
var vllmKeyGroups = []struct {
	keys     []string
	optional bool
}{
	{[]string{"request_rate", "burstiness", "max_concurrency"}, false},
	{[]string{"ramp_up_strategy", "ramp_up_start_rps", "ramp_up_end_rps"}, true},
}

// vllmBodies are the generation and pooling bodies, with "?" marking the
// detailed arrays (present all or none).
var vllmBodies = [][]string{
	{"duration", "completed", "failed", "total_input_tokens", "total_output_tokens", "request_throughput",
		"request_goodput", "output_throughput", "total_token_throughput", "?input_lens", "?output_lens", "?ttfts",
		"?itls", "latencies", "?start_times", "queue_times", "?generated_texts", "?errors",
		"max_output_tokens_per_s", "max_concurrent_requests", "rtfx"},
	{"duration", "completed", "total_input_tokens", "total_input_sequences", "request_throughput",
		"input_sequence_throughput", "total_token_throughput", "?input_lens", "latencies", "queue_times", "?errors"},
}

// vllmExtras are the optional groups after the body, in order.
var vllmExtras = [][]string{
	{"probe_completed", "probe_failed", "probe_median_e2el_ms", "probe_p99_e2el_ms", "probe_max_e2el_ms"},
	{"rps_change_events"},
	{"spec_decode_acceptance_rate", "spec_decode_acceptance_length", "spec_decode_num_drafts", "spec_decode_draft_tokens",
		"spec_decode_accepted_tokens", "spec_decode_per_position_acceptance_rates"},
	{"diffusion_committed_throughput", "diffusion_steps_per_canvas", "diffusion_committed_per_step",
		"diffusion_committed_tokens", "diffusion_denoising_steps", "diffusion_canvas_positions"},
}

// metricStat matches a metric statistic key: mean_ttft_ms, p99.9_itl_ms.
var metricStat = regexp.MustCompile(`^(mean|median|std|p[0-9]+(\.[0-9]+)?)_([a-z0-9_]+)_ms$`)

// matchVLLMKeys says how keys differ from vLLM's result keys (nil: they
// do not).
func matchVLLMKeys(keys []string) error {
	i := 0
	expect := func(k string) error {
		if i >= len(keys) {
			return fmt.Errorf("the keys end where %q is due", k)
		}
		if keys[i] != k {
			return fmt.Errorf("key %d is %q where vLLM writes %q", i, keys[i], k)
		}
		i++
		return nil
	}
	for _, k := range []string{"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts"} {
		if err := expect(k); err != nil {
			return err
		}
	}
	for i < len(keys) && keys[i] != "request_rate" { // the user's metadata
		if keys[i] == "vbench" {
			return errors.New(`a "vbench" object, which vLLM does not write`)
		}
		i++
	}
	for _, g := range vllmKeyGroups {
		if g.optional && (i >= len(keys) || keys[i] != g.keys[0]) {
			continue
		}
		for _, k := range g.keys {
			if err := expect(k); err != nil {
				return err
			}
		}
	}
	body := vllmBodies[0]
	if i+3 < len(keys) && keys[i+2] == "total_input_tokens" {
		body = vllmBodies[1] // pooling: no "failed"
	}
	detailed := -1 // unknown until the first detailed key's place
	for _, k := range body {
		name, opt := strings.CutPrefix(k, "?")
		if opt {
			here := i < len(keys) && keys[i] == name
			if detailed < 0 {
				detailed = map[bool]int{false: 0, true: 1}[here]
			}
			if detailed == 0 {
				if here {
					return fmt.Errorf("detailed key %q without the others", name)
				}
				continue
			}
		}
		if err := expect(name); err != nil {
			return err
		}
	}
	for _, g := range vllmExtras {
		if i >= len(keys) || keys[i] != g[0] {
			continue
		}
		for _, k := range g {
			if err := expect(k); err != nil {
				return err
			}
		}
	}
	// Each metric: mean, median, std, then its percentiles.
	for i < len(keys) {
		m := metricStat.FindStringSubmatch(keys[i])
		if m == nil || m[1] != "mean" {
			return fmt.Errorf("key %d is %q where vLLM writes a metric's mean_<metric>_ms or nothing more", i, keys[i])
		}
		metric := m[3]
		i++
		for _, stat := range []string{"median", "std"} {
			if err := expect(stat + "_" + metric + "_ms"); err != nil {
				return err
			}
		}
		for i < len(keys) {
			p := metricStat.FindStringSubmatch(keys[i])
			if p == nil || p[3] != metric || !strings.HasPrefix(p[1], "p") {
				break
			}
			i++
		}
	}
	return nil
}
