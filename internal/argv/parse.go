package argv

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/typo"
)

// Options control Parse.
type Options struct {
	// ReadFile reads the file of --config; nil means os.ReadFile.
	ReadFile func(name string) ([]byte, error)
}

// Command is a parsed vllm bench serve command line.
type Command struct {
	// Scenario is the equivalent scenario, resolved against the schema and
	// validated.
	Scenario *scenario.Scenario
	// Extras is --vbench-extras: the result JSON gets the "vbench" object and
	// the per-request records are written, as with vbench run.
	Extras bool
	// Sources maps each scenario field path a flag set (CUE syntax, e.g.
	// "dataset.random.input_len") to that flag.
	Sources map[string]string
	// Warnings are things worth saying that do not stop the run: repeated
	// flags, flags that have no effect.
	Warnings []string
	// Compare is vllm-bench's --compare FILE_A FILE_B: compare two saved
	// results instead of running (nil when not given).
	Compare []string
	// DryRun is vllm-bench's --dry-run: prepare the requests and print
	// their totals instead of sending them.
	DryRun bool
}

// Parse parses the arguments of `vllm bench serve` (everything after
// "serve") into the equivalent scenario. See ParseCommand.
func Parse(args []string, opts Options) (*scenario.Scenario, error) {
	cmd, err := ParseCommand(args, opts)
	if err != nil {
		return nil, err
	}
	return cmd.Scenario, nil
}

// ParseCommand parses the arguments of `vllm bench serve` the way vLLM's
// FlexibleArgumentParser does (see rewrite for --config, underscores and
// dotted options; argparse's abbreviations, NAME=VALUE, nargs and negative
// numbers), applies vLLM's types, defaults and choices, runs vLLM's
// validation, and maps the result onto a scenario.
//
// Errors are *Error, one line naming the flag, except that -h, --help and
// --help=KEYWORD return a *HelpError (errors.Is(err, ErrHelp)). A flag
// vbench does not implement yet (see Unsupported) is an *Error with
// Unsupported set.
func ParseCommand(args []string, opts Options) (*Command, error) {
	rw, err := rewrite(args, opts)
	if err != nil {
		return nil, err
	}
	toks := make([]token, len(rw.args))
	for i, a := range rw.args {
		if toks[i], err = classify(a); err != nil {
			return nil, err
		}
	}
	n := newNamespace()
	p := &parser{ns: n, raw: map[string]string{}}
	if err := p.consume(toks, rw.helpKeyword, rw.fromConfig); err != nil {
		return nil, err
	}
	for _, k := range rw.duplicateKeys {
		p.warnings = append(p.warnings, fmt.Sprintf("duplicate key %s: the last value wins", k))
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	sc, sources, err := p.scenario()
	if err != nil {
		return nil, err
	}
	return &Command{Scenario: sc, Extras: n.extras, Sources: sources, Warnings: p.warnings,
		Compare: n.rust.compare, DryRun: n.rust.dryRun}, nil
}

// parser holds the state of one parse.
type parser struct {
	ns *namespace
	// given lists the flags given, in order, each once (its last place).
	given []string
	// raw is the last value text of each flag given, for error messages.
	raw      map[string]string
	warnings []string
}

// consume walks the classified tokens as argparse does: each option takes
// the values its arity allows from the tokens that follow it (or its =VALUE),
// and any value left over is an error. fromConfig counts the options the
// --config file gave, which do not count as repeats.
func (p *parser) consume(toks []token, helpKeyword string, fromConfig map[string]int) error {
	var extras []string
	var unknown string
	count := map[string]int{}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.kind {
		case tokValue:
			extras = append(extras, t.text)
			continue
		case tokUnknown:
			if unknown == "" {
				unknown = t.text
			}
			extras = append(extras, t.text)
			continue
		case tokEnd:
			for _, r := range toks[i+1:] {
				extras = append(extras, r.text)
			}
			i = len(toks)
			continue
		}
		if t.name == "-h" || t.name == "--help" {
			if t.explicit != nil && *t.explicit != "" {
				return flagErr("-h/--help", fmt.Sprintf("ignored explicit argument %s", py.ReprString(*t.explicit)))
			}
			return &HelpError{Keyword: helpKeyword}
		}
		if reason, ok := unsupported[t.name]; ok {
			return &Error{Flag: t.name, Msg: "not supported yet (" + reason + ")", Unsupported: true}
		}
		if reason, ok := rustUnsupported[t.name]; ok {
			return &Error{Flag: t.name, Msg: "vllm-bench's flag is not supported yet (" + reason + ")", Unsupported: true}
		}
		f := flagByName[t.name]
		var vals []string
		if t.explicit != nil {
			if f.arity == arityZero {
				return flagErr(f.name, fmt.Sprintf("ignored explicit argument %s (the flag takes no value)", py.ReprString(*t.explicit)))
			}
			vals = []string{*t.explicit}
		} else {
			j := i + 1
			for j < len(toks) && toks[j].kind == tokValue {
				j++
			}
			avail := toks[i+1 : j]
			switch f.arity {
			case arityOne:
				if len(avail) == 0 {
					return flagErr(f.name, "expected one argument")
				}
				avail = avail[:1]
			case arityPlus:
				if len(avail) == 0 {
					return flagErr(f.name, "expected at least one argument")
				}
			case arityZero:
				avail = nil
			}
			for _, a := range avail {
				vals = append(vals, a.text)
			}
			i += len(avail)
		}
		display := f.name
		for _, v := range vals {
			if f.name == "--header" {
				break // header values may hold secrets: name the flag only
			}
			if f.name == "--base-url" {
				v = scenario.RedactURL(v) // no password
			}
			if v == "" || strings.ContainsAny(v, pySpace) {
				v = py.ReprString(v)
			}
			display += " " + v
		}
		if err := p.checkChoice(f, vals); err != nil {
			return err
		}
		if err := f.set(p.ns, vals); err != nil {
			return flagErr(display, err.Error())
		}
		count[f.name]++
		p.given = slices.DeleteFunc(p.given, func(s string) bool { return s == f.name })
		p.given = append(p.given, f.name)
		p.raw[f.name] = display
	}
	if len(extras) > 0 {
		msg := "unrecognized arguments: " + strings.Join(extras, " ")
		if unknown != "" {
			if s := suggest(strings.SplitN(unknown, "=", 2)[0]); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
		}
		return &Error{Msg: msg}
	}
	for _, name := range p.given {
		// A flag of the --config file that the command line overrides is
		// the intended use, not worth a warning.
		if n := count[name] - fromConfig[name]; n > 1 {
			p.warnings = append(p.warnings, fmt.Sprintf("%s was given %d times: the last one wins", name, n))
		}
	}
	return nil
}

// checkChoice applies a flag's choices: a value outside them is vLLM's
// "invalid choice"; one vbench does not implement yet is unsupported.
func (p *parser) checkChoice(f *flagDef, vals []string) error {
	if f.choices == nil {
		return nil
	}
	v := vals[0]
	if !slices.Contains(f.choices, v) {
		return flagErr(f.name, fmt.Sprintf("invalid choice: %s (choose from %s)", py.ReprString(v), strings.Join(f.choices, ", ")))
	}
	if f.supported != nil && !slices.Contains(f.supported, v) {
		return &Error{Flag: f.name + " " + v, Unsupported: true,
			Msg: fmt.Sprintf("not supported yet (vbench serve implements %s so far)", strings.Join(f.supported, ", "))}
	}
	return nil
}

// suggest returns the option (or alias) closest to name when it is close
// enough to be a typo (an edit distance of at most a quarter of its
// length), else "".
func suggest(name string) string {
	return typo.Closest(name, suggestible, len(name)/4)
}

// suggestible are the names suggest chooses from: the options and the
// aliases.
var suggestible = append(slices.Clone(optionNames), slices.Sorted(maps.Keys(aliases))...)

// validate applies the checks vLLM's main_async makes before running, with
// one-line errors naming the flags.
func (p *parser) validate() error {
	n := p.ns
	if c := n.maxConcurrency; c != nil && *c <= 0 {
		return flagErr(p.raw["--max-concurrency"], "must be greater than 0 (leave it out for no limit)")
	}
	if err := p.validateTimeline(); err != nil {
		return err
	}
	if err := p.validateRust(); err != nil {
		return err
	}
	if n.seed < 0 || n.seed > math.MaxUint32 {
		return flagErr(p.raw["--seed"], "must be between 0 and 4294967295 (numpy's seed range)")
	}
	switch r := n.probeRate; {
	case r < 0:
		p.warnings = append(p.warnings, "--probe-request-rate is negative: no probe requests are sent (as in vllm bench serve)")
	}
	if ds := argvDatasetNamed(n.datasetName); ds != nil {
		switch {
		case ds.generated && n.datasetPath != "":
			return flagErr(p.raw["--dataset-path"], fmt.Sprintf("the %s dataset is generated and reads no file: leave --dataset-path out (vllm bench serve refuses it too)", n.datasetName))
		case ds.pathHint != "" && n.datasetPath == "":
			return flagErr(p.raw["--dataset-name"], fmt.Sprintf("the %s dataset needs --dataset-path (%s)", n.datasetName, ds.pathHint))
		}
	}
	if ds := argvDatasetNamed(n.datasetName); ds != nil && n.outputLen != nil && ds.outputLenPath == "" {
		w := fmt.Sprintf("--output-len has no effect on the %s dataset (as in vllm bench serve)", n.datasetName)
		if ds.ownOutputLen != "" {
			w += ": its output length is " + ds.ownOutputLen
		}
		p.warnings = append(p.warnings, w)
	}
	if err := p.validateTimedTrace(); err != nil {
		return err
	}
	if n.rampUpStrategy == "" {
		for _, name := range []string{"--ramp-up-start-rps", "--ramp-up-end-rps"} {
			if p.raw[name] != "" {
				p.warnings = append(p.warnings, name+" has no effect without --ramp-up-strategy (as in vllm bench serve)")
			}
		}
		return nil
	}
	strategy := p.raw["--ramp-up-strategy"]
	switch {
	case !math.IsInf(n.requestRate, 1):
		return flagErr(p.raw["--request-rate"], "must not be set with --ramp-up-strategy: the ramp-up parameters control the request rate")
	case n.rampUpStart == nil || n.rampUpEnd == nil:
		return flagErr(strategy, "needs both --ramp-up-start-rps and --ramp-up-end-rps")
	case *n.rampUpStart < 0 || *n.rampUpEnd < 0:
		return flagErr("--ramp-up-start-rps/--ramp-up-end-rps", fmt.Sprintf("must be non-negative (got %d and %d)", *n.rampUpStart, *n.rampUpEnd))
	case *n.rampUpStart > *n.rampUpEnd:
		return flagErr("--ramp-up-start-rps", fmt.Sprintf("must not exceed --ramp-up-end-rps (got %d > %d)", *n.rampUpStart, *n.rampUpEnd))
	case n.rampUpStrategy == "exponential" && *n.rampUpStart == 0:
		return flagErr(p.raw["--ramp-up-start-rps"], "an exponential ramp-up cannot start at 0")
	}
	return nil
}

// scenario maps the namespace onto a scenario and resolves it against the
// schema, so that it is exactly what a scenario file with these values
// gives. It also returns which flag set each field.
func (p *parser) scenario() (*scenario.Scenario, map[string]string, error) {
	n := p.ns
	sc := scenario.Default()
	sc.Seed = n.seed

	t := &sc.Target
	t.Backend, t.BaseURL, t.Host, t.Port, t.Endpoint = n.backend, n.baseURL, n.host, int(n.port), n.endpoint
	t.Headers, t.Model, t.ServedModelName, t.Insecure = n.headers, n.model, n.servedModelName, n.insecure
	if n.streamCounting == "exact" { // "vllm" is the default, left unset
		t.StreamCounting = n.streamCounting
	}
	t.Profile, t.LoraModules, t.LoraAssignment = n.profile, n.loraModules, n.loraAssignment
	if n.requestIDPrefix != nil {
		t.RequestIDPrefix = *n.requestIDPrefix
	}

	sc.Tokenizer.Name, sc.Tokenizer.Mode = n.tokenizer, n.tokenizerMode
	sc.Tokenizer.TrustRemoteCode, sc.Tokenizer.SkipInit = n.trustRemoteCode, n.skipTokenizerInit

	ds := argvDatasetNamed(n.datasetName)
	if ds == nil {
		return nil, nil, fmt.Errorf("internal error: --dataset-name %s has no dataset table entry", n.datasetName)
	}
	sc.Dataset = ds.dataset(n)

	l := &sc.Load
	l.NumPrompts, l.RequestRate, l.Burstiness = int(n.numPrompts), scenario.Float(n.requestRate), scenario.Float(n.burstiness)
	l.MaxConcurrency = intPtr(n.maxConcurrency)
	if n.rampUpStrategy != "" {
		l.RampUp = &scenario.RampUp{Strategy: n.rampUpStrategy, StartRPS: float64(*n.rampUpStart), EndRPS: float64(*n.rampUpEnd)}
	}
	l.NumWarmups, l.ReadyCheckTimeoutSec = int(n.numWarmups), int(n.readyCheck)
	if n.probeRate > 0 { // vLLM sends probes only at a positive rate
		l.ProbeRequestRate = scenario.Float(n.probeRate)
	}

	s := &sc.Sampling
	s.Temperature, s.TopP, s.MinP = n.temperature, n.topP, n.minP
	s.FrequencyPenalty, s.PresencePenalty, s.RepetitionPenalty = n.frequencyPenalty, n.presencePenalty, n.repetitionPenalty
	s.TopK, s.Logprobs, s.IgnoreEOS, s.ExtraBody = intPtr(n.topK), intPtr(n.logprobs), n.ignoreEOS, n.extraBody

	sc.Metrics.PercentileMetrics, sc.Metrics.MetricPercentiles, sc.Metrics.Goodput = n.percentileMetrics, n.metricPercentiles, n.goodput
	if scenario.Pooling(n.backend) && (!slices.Contains(p.given, "--percentile-metrics") || n.percentileMetricsEmpty) {
		sc.Metrics.PercentileMetrics = []string{"e2el"} // vLLM's default for pooling
	}
	if len(n.goodput) == 0 {
		sc.Metrics.Goodput = nil
	}

	o := &sc.Output
	o.SaveResult, o.SaveDetailed, o.AppendResult, o.DisableTqdm = n.saveResult, n.saveDetailed, n.appendResult, n.disableTqdm
	o.ResultDir, o.ResultFilename, o.Label, o.Metadata = n.resultDir, n.resultFilename, n.label, n.metadata
	o.Overwrite, o.PlotDatasetStats = n.overwrite, n.plotDatasetStats
	o.PlotTimeline = n.plotTimeline
	if thr, err := parseITLThresholds(n.itlThresholds); err == nil {
		o.TimelineITLThresholds = thr
	}

	sources := map[string]string{}
	for _, name := range p.given {
		for _, path := range flagByName[name].paths {
			sources[path] = name
		}
	}
	if n.inputLen != nil && ds.inputLenPath != "" {
		sources[ds.inputLenPath] = "--input-len"
	}
	if n.outputLen != nil && ds.outputLenPath != "" {
		sources[ds.outputLenPath] = "--output-len"
	}

	sc.Metrics.ScrapeIntervalSec = n.scrapeInterval // vbench's --scrape-interval
	p.applyRust(sc)
	data, err := json.Marshal(sc)
	if err != nil {
		return nil, nil, fmt.Errorf("internal error: encode scenario: %w", err)
	}
	resolved, err := scenario.LoadBytes("vllm-argv.json", data, scenario.Options{})
	if err != nil {
		return nil, nil, p.schemaError(err, sources)
	}
	return resolved, sources, nil
}

// schemaError turns a scenario error into one line about the flag that set
// the offending field.
func (p *parser) schemaError(err error, sources map[string]string) error {
	var e *scenario.Error
	if !errors.As(err, &e) || len(e.Problems) == 0 {
		return err
	}
	prob := e.Problems[0]
	more := ""
	if len(e.Problems) > 1 {
		more = fmt.Sprintf(" (and %d more problems)", len(e.Problems)-1)
	}
	flag, best := "", ""
	for path, name := range sources {
		under := prob.Path == path || strings.HasPrefix(prob.Path, path+".") || strings.HasPrefix(prob.Path, path+"[")
		if under && len(path) > len(best) {
			flag, best = name, path
		}
	}
	if flag == "" {
		return &Error{Msg: fmt.Sprintf("%s: %s%s", prob.Path, prob.Msg, more)}
	}
	return flagErr(p.raw[flag], prob.Msg+more)
}

func intPtr(p *int64) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}
