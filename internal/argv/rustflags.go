package argv

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/scenario"
)

// rustNamespace holds the flags of vLLM's Rust client, vllm-bench, that
// the Python vllm bench serve does not have.
type rustNamespace struct {
	numRuns               int64
	sweepConcurrency      []int64
	sweepRates            []float64
	numPromptsFactor      *int64
	summaryPercentiles    []float64
	steadyThreshold       *float64
	steadyMinWindow       *float64
	noSteadyState         bool
	resetPrefixCache      bool
	compare               []string
	dryRun                bool
	hfTextColumn          string
	speedBenchMaxInputLen int64
	profileThreshold      int64
	profileDuration       *float64

	// --multi-turn and its options.
	multiTurn                          bool
	mtNumTurns, mtMinTurns, mtMaxTurns int64
	mtConcurrency                      *int64
	mtDelayMs                          int64
	mtGlobalRatio, mtConvRatio         float64
	perTurnInputLen                    int64
	promptTokenIDs                     bool
	cacheHitFraction, cacheRatio       float64
	maxModelLen                        int64
}

// rustFlags are vllm-bench's own flags that vbench implements, each mapped
// onto the scenario as vllm-bench behaves (rust/src/bench/src in
// vllm-project/vllm: cli.rs, lib.rs, sweep.rs, multi_run.rs,
// compare.rs, metrics/steady_state.rs).
var rustFlags = []*flagDef{
	{name: "--num-runs", arity: arityOne, metavar: "INT", def: "1", rust: true, paths: []string{"repeat.count"},
		help: "vllm-bench: run the benchmark N times and summarise the runs (a repeat experiment; ignored with a sweep)",
		set:  setRustInt(func(r *rustNamespace) *int64 { return &r.numRuns })},
	{name: "--sweep-max-concurrency", arity: arityOne, metavar: "LIST", def: "None", rust: true, paths: []string{"sweep.axes"},
		help: "vllm-bench: comma-separated max concurrencies, one run each (a sweep over load.max_concurrency)",
		set:  setSweepConcurrency},
	{name: "--sweep-request-rate", arity: arityOne, metavar: "LIST", def: "None", rust: true, paths: []string{"sweep.axes"},
		help: "vllm-bench: comma-separated request rates (numbers or inf), one run each (a sweep over load.request_rate; --sweep-max-concurrency wins)",
		set:  setSweepRates},
	{name: "--sweep-num-prompts-factor", arity: arityOne, metavar: "INT", def: "None", rust: true, paths: []string{"sweep.axes"},
		help: "vllm-bench: in a concurrency sweep, num_prompts = concurrency × FACTOR at each point",
		set: func(n *namespace, v []string) error {
			x, err := rustUint(v[0])
			n.rust.numPromptsFactor = &x
			return err
		}},
	{name: "--sweep-summary-percentiles", arity: arityOne, metavar: "LIST", def: "None", rust: true, paths: []string{"metrics.metric_percentiles"},
		help: "vllm-bench: comma-separated percentiles in [0, 100] added to every run's --metric-percentiles (and 90)",
		set:  setSummaryPercentiles},
	{name: "--steady-state-threshold", arity: arityOne, metavar: "FLOAT", def: "0.95", rust: true, paths: []string{"metrics.steady_state_threshold"},
		help: "vllm-bench: share of --max-concurrency in flight that opens the steady-state window, in (0, 1]",
		set: func(n *namespace, v []string) error {
			x, err := rustFloat(v[0])
			n.rust.steadyThreshold = &x
			return err
		}},
	{name: "--steady-state-min-window", arity: arityOne, metavar: "SECONDS", def: "None", rust: true, paths: []string{"metrics.steady_state_min_window"},
		help: "vllm-bench: a steady-state window shorter than this carries a warning (default: max(10 s, 10 % of the run))",
		set: func(n *namespace, v []string) error {
			x, err := rustFloat(v[0])
			n.rust.steadyMinWindow = &x
			return err
		}},
	{name: "--no-steady-state", arity: arityZero, def: "False", rust: true, paths: []string{"metrics.steady_state"},
		help: "vllm-bench: no steady-state window", set: func(n *namespace, _ []string) error { n.rust.noSteadyState = true; return nil }},
	{name: "--reset-prefix-cache", arity: arityZero, def: "False", rust: true, paths: []string{"target.reset_prefix_cache"},
		help: "vllm-bench: POST /reset_prefix_cache before each sweep point (the server needs VLLM_SERVER_DEV_MODE=1)",
		set:  func(n *namespace, _ []string) error { n.rust.resetPrefixCache = true; return nil }},
	{name: "--compare", arity: arityPlus, metavar: "FILE", def: "None", rust: true,
		help: "vllm-bench: compare two saved results (FILE_A FILE_B) instead of running; the last line of each file is read",
		set:  func(n *namespace, v []string) error { n.rust.compare = v; return nil }},
	{name: "--hf-text-column", arity: arityOne, metavar: "STR", def: "None", rust: true, paths: []string{"dataset.hf.text_column"},
		help: "vllm-bench: hf: the prompt column instead of the one found from the first row (a chat column gives its first user message)",
		set:  func(n *namespace, v []string) error { n.rust.hfTextColumn = v[0]; return nil }},
	{name: "--speed-bench-max-input-len", arity: arityOne, metavar: "INT", def: "None", rust: true, paths: []string{"dataset.speed_bench.max_input_len"},
		help: "vllm-bench: speed_bench: cut longer prompts to their first INT tokens",
		set: func(n *namespace, v []string) error {
			x, err := rustUint(v[0])
			if err == nil && x == 0 {
				err = fmt.Errorf("invalid value 0 (a length is at least 1)")
			}
			n.rust.speedBenchMaxInputLen = x
			return err
		}},
	{name: "--profile-batch-threshold", arity: arityOne, metavar: "INT", def: "None", rust: true, paths: []string{"target.profile_batch_threshold"},
		help: "vllm-bench: with --profile, start the profiler once the server runs INT requests (its /metrics, every 0.5 s)",
		set:  setRustInt(func(r *rustNamespace) *int64 { return &r.profileThreshold })},
	{name: "--profile-duration", arity: arityOne, metavar: "SECONDS", def: "5", rust: true, paths: []string{"target.profile_duration"},
		help: "vllm-bench: how long the --profile-batch-threshold profiler runs",
		set: func(n *namespace, v []string) error {
			x, err := rustFloat(v[0])
			n.rust.profileDuration = &x
			return err
		}},
	{name: "--multi-turn", arity: arityZero, def: "False", rust: true, paths: []string{"dataset.conversations"},
		help: "vllm-bench: multi-turn conversations (openai-chat, random dataset): --num-prompts conversations, each turn's history sent with it (dataset.conversations)",
		set:  func(n *namespace, _ []string) error { n.rust.multiTurn = true; return nil }},
	{name: "--multi-turn-num-turns", arity: arityOne, metavar: "INT", def: "3", rust: true, paths: []string{"dataset.conversations.turns"},
		help: "vllm-bench: turns per conversation", set: setRustInt(func(r *rustNamespace) *int64 { return &r.mtNumTurns })},
	{name: "--multi-turn-min-turns", arity: arityOne, metavar: "INT", def: "0", rust: true, paths: []string{"dataset.conversations.turns"},
		help: "vllm-bench: with --multi-turn-max-turns, turns drawn uniformly per conversation (0: --multi-turn-num-turns)",
		set:  setRustInt(func(r *rustNamespace) *int64 { return &r.mtMinTurns })},
	{name: "--multi-turn-max-turns", arity: arityOne, metavar: "INT", def: "0", rust: true, paths: []string{"dataset.conversations.turns"},
		help: "vllm-bench: the most turns of a conversation (0: --multi-turn-num-turns)",
		set:  setRustInt(func(r *rustNamespace) *int64 { return &r.mtMaxTurns })},
	{name: "--multi-turn-concurrency", arity: arityOne, metavar: "INT", def: "None", rust: true, paths: []string{"load.max_concurrency"},
		help: "vllm-bench: the most turns in flight at once (default: --max-concurrency)",
		set: func(n *namespace, v []string) error {
			x, err := rustUint(v[0])
			n.rust.mtConcurrency = &x
			return err
		}},
	{name: "--multi-turn-delay-ms", arity: arityOne, metavar: "INT", def: "0", rust: true, paths: []string{"dataset.conversations.think_time_ms"},
		help: "vllm-bench: the pause between an answer and the next turn, in ms",
		set:  setRustInt(func(r *rustNamespace) *int64 { return &r.mtDelayMs })},
	{name: "--multi-turn-prefix-global-ratio", arity: arityOne, metavar: "FLOAT", def: "0", rust: true, paths: []string{"dataset.conversations"},
		help: "vllm-bench: share of each message that is a prefix shared by all conversations (its no-history mode: not supported yet above 0)",
		set: func(n *namespace, v []string) error {
			x, err := rustFloat(v[0])
			n.rust.mtGlobalRatio = x
			return err
		}},
	{name: "--multi-turn-prefix-conversation-ratio", arity: arityOne, metavar: "FLOAT", def: "0", rust: true, paths: []string{"dataset.conversations"},
		help: "vllm-bench: share of each message that is a prefix shared by a conversation's turns (its no-history mode: not supported yet above 0)",
		set: func(n *namespace, v []string) error {
			x, err := rustFloat(v[0])
			n.rust.mtConvRatio = x
			return err
		}},
	{name: "--per-turn-input-len", arity: arityOne, metavar: "INT", def: "0", rust: true, paths: []string{"dataset.conversations.input_len"},
		help: "vllm-bench: the input length of turns after the first (0: the first's; only equal to it is supported yet)",
		set:  setRustInt(func(r *rustNamespace) *int64 { return &r.perTurnInputLen })},
	{name: "--prompt-token-ids", arity: arityZero, def: "False", rust: true, paths: []string{"dataset.random.prompt_token_ids"},
		help: "vllm-bench: random: send each prompt as its token ids, exactly as drawn (completions backends)",
		set:  func(n *namespace, _ []string) error { n.rust.promptTokenIDs = true; return nil }},
	{name: "--random-cache-hit-fraction", arity: arityOne, metavar: "FLOAT", def: "0.0", rust: true, paths: []string{"dataset.random.cache_hit_fraction"},
		help: "vllm-bench: random, with --prompt-token-ids and --random-cache-ratio: the share of requests that start with the shared base",
		set: func(n *namespace, v []string) error {
			x, err := rustFloat(v[0])
			n.rust.cacheHitFraction = x
			return err
		}},
	{name: "--random-cache-ratio", arity: arityOne, metavar: "FLOAT", def: "0.0", rust: true, paths: []string{"dataset.random.cache_ratio"},
		help: "vllm-bench: random, with --prompt-token-ids and --random-cache-hit-fraction: the share of a warm request's tokens taken from the shared base",
		set: func(n *namespace, v []string) error {
			x, err := rustFloat(v[0])
			n.rust.cacheRatio = x
			return err
		}},
	{name: "--max-model-len", arity: arityOne, metavar: "INT", def: "None", rust: true, paths: []string{"load.max_model_len"},
		help: "vllm-bench: drop the requests whose prompt and output together are longer",
		set: func(n *namespace, v []string) error {
			x, err := rustUint(v[0])
			if err == nil && x == 0 {
				err = fmt.Errorf("invalid value 0 (a length is at least 1)")
			}
			n.rust.maxModelLen = x
			return err
		}},
	{name: "--dry-run", arity: arityZero, def: "False", rust: true,
		help: "vllm-bench: prepare the requests and print their totals without sending them",
		set:  func(n *namespace, _ []string) error { n.rust.dryRun = true; return nil }},
}

//go:embed testdata/rust-unsupported.txt
var rustUnsupportedFile string

// defaultRustProfileDuration is vllm-bench's --profile-duration default.
const defaultRustProfileDuration = 5.0

// rustUnsupported maps each vllm-bench flag vbench does not implement yet
// to the reason, from testdata/rust-unsupported.txt.
var rustUnsupported = parseUnsupported(rustUnsupportedFile)

// rustName reports whether name is one of vllm-bench's own flags
// (implemented or not).
func rustName(name string) bool {
	if f, ok := flagByName[name]; ok {
		return f.rust
	}
	_, ok := rustUnsupported[name]
	return ok
}

// setRustInt parses a Rust usize.
func setRustInt(field func(*rustNamespace) *int64) func(*namespace, []string) error {
	return func(n *namespace, v []string) error {
		x, err := rustUint(v[0])
		*field(&n.rust) = x
		return err
	}
}

// rustUint parses a non-negative integer as Rust's usize::from_str does.
func rustUint(s string) (int64, error) {
	x, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 10, 64)
	if err != nil || x < 0 || strings.HasPrefix(s, "+-") {
		return 0, fmt.Errorf("invalid value %s (want a non-negative integer)", strconv.Quote(s))
	}
	return x, nil
}

// rustFloat parses an f64 as Rust's f64::from_str does (inf and nan
// included).
func rustFloat(s string) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid value %s (want a number)", strconv.Quote(s))
	}
	return x, nil
}

// setSweepConcurrency parses --sweep-max-concurrency: comma-separated
// integers, each trimmed; an empty entry is an error.
func setSweepConcurrency(n *namespace, v []string) error {
	var out []int64
	for _, s := range strings.Split(v[0], ",") {
		x, err := rustUint(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		if x == 0 {
			return fmt.Errorf("invalid value 0 (a concurrency is at least 1)")
		}
		out = append(out, x)
	}
	n.rust.sweepConcurrency = out
	return nil
}

// setSweepRates parses --sweep-request-rate: comma-separated numbers or
// "inf", each trimmed.
func setSweepRates(n *namespace, v []string) error {
	var out []float64
	for _, s := range strings.Split(v[0], ",") {
		s = strings.TrimSpace(s)
		x := math.Inf(1)
		if s != "inf" {
			var err error
			if x, err = rustFloat(s); err != nil {
				return err
			}
			if !(x > 0) || math.IsInf(x, 0) {
				return fmt.Errorf("invalid rate %s (want a positive number or inf)", strconv.Quote(s))
			}
		}
		out = append(out, x)
	}
	n.rust.sweepRates = out
	return nil
}

// setSummaryPercentiles parses --sweep-summary-percentiles: comma-separated
// numbers in [0, 100], without repeats.
func setSummaryPercentiles(n *namespace, v []string) error {
	var out []float64
	for _, s := range strings.Split(v[0], ",") {
		x, err := rustFloat(strings.TrimSpace(s))
		if err != nil || !(x >= 0 && x <= 100) {
			return fmt.Errorf("invalid percentile %s (want numbers in [0, 100])", strconv.Quote(strings.TrimSpace(s)))
		}
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	n.rust.summaryPercentiles = out
	return nil
}

// validateRust applies vllm-bench's checks of its own flags.
func (p *parser) validateRust() error {
	r := &p.ns.rust
	if t := r.steadyThreshold; t != nil && !(*t > 0 && *t <= 1) {
		return flagErr(p.raw["--steady-state-threshold"], "must be in (0, 1]")
	}
	if w := r.steadyMinWindow; w != nil && !(*w >= 0) {
		return flagErr(p.raw["--steady-state-min-window"], "must be at least 0")
	}
	if r.profileThreshold > 0 && !p.ns.profile {
		return flagErr(p.raw["--profile-batch-threshold"], "requires --profile")
	}
	if d := r.profileDuration; d != nil && !(*d > 0) {
		return flagErr(p.raw["--profile-duration"], "must be greater than 0")
	}
	if d := r.profileDuration; d != nil && *d != defaultRustProfileDuration && r.profileThreshold == 0 {
		return flagErr(p.raw["--profile-duration"], "needs --profile-batch-threshold (without it the profiler runs for the whole run)")
	}
	if r.promptTokenIDs && p.ns.datasetName != "random" {
		return flagErr("--prompt-token-ids", "needs --dataset-name random")
	}
	if r.promptTokenIDs && p.ns.randomBatchSize > 1 {
		return flagErr("--prompt-token-ids", "cannot be used with --random-batch-size above 1")
	}
	if f, c := r.cacheHitFraction, r.cacheRatio; f != 0 || c != 0 {
		switch {
		case !(f >= 0 && f <= 1) || !(c >= 0 && c <= 1):
			return flagErr("--random-cache-hit-fraction", "it and --random-cache-ratio must be in [0, 1]")
		case f > 0 && c > 0 && !r.promptTokenIDs:
			return flagErr("--random-cache-hit-fraction", "the bimodal cache mode needs --prompt-token-ids")
		case f == 0 || c == 0:
			p.warnings = append(p.warnings, "the bimodal cache mode needs both --random-cache-hit-fraction and --random-cache-ratio above 0: it is off, as in vllm-bench")
		}
	}
	if err := p.validateMultiTurn(); err != nil {
		return err
	}
	if r.compare != nil && len(r.compare) != 2 {
		return flagErr("--compare", fmt.Sprintf("takes two files, FILE_A FILE_B, got %d", len(r.compare)))
	}
	return nil
}

// applyRust maps vllm-bench's flags onto the scenario, in vllm-bench's
// order of precedence: a concurrency sweep, else a rate sweep, else
// --num-runs above 1; --sweep-num-prompts-factor only with a concurrency
// sweep.
func (p *parser) applyRust(sc *scenario.Scenario) {
	r := &p.ns.rust
	if r.noSteadyState {
		off := false
		sc.Metrics.SteadyState = &off
	}
	sc.Metrics.SteadyStateThreshold, sc.Metrics.SteadyStateMinWindow = r.steadyThreshold, r.steadyMinWindow
	sc.Target.ResetPrefixCache = r.resetPrefixCache
	sc.Load.MaxModelLen = int(r.maxModelLen)
	sc.Target.ProfileBatchThreshold = int(r.profileThreshold)
	if d := r.profileDuration; d != nil && r.profileThreshold > 0 && *d != defaultRustProfileDuration {
		sc.Target.ProfileDuration = *d
	}
	if len(r.summaryPercentiles) > 0 {
		ps := slices.Clone(sc.Metrics.MetricPercentiles)
		for _, x := range append(slices.Clone(r.summaryPercentiles), 90) {
			if !slices.Contains(ps, x) {
				ps = append(ps, x)
			}
		}
		sc.Metrics.MetricPercentiles = ps
	}
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	switch {
	case len(r.sweepConcurrency) > 0:
		if len(r.sweepRates) > 0 {
			p.warnings = append(p.warnings, "--sweep-request-rate is ignored: --sweep-max-concurrency wins, as in vllm-bench")
		}
		axes := map[string][]json.RawMessage{}
		for _, c := range r.sweepConcurrency {
			axes["load.max_concurrency"] = append(axes["load.max_concurrency"], raw(c))
			if f := r.numPromptsFactor; f != nil {
				axes["load.num_prompts"] = append(axes["load.num_prompts"], raw(c**f))
			}
		}
		mode := "grid"
		if r.numPromptsFactor != nil {
			mode = "zip"
		}
		sc.Sweep = &scenario.Sweep{Axes: axes, Mode: mode}
	case len(r.sweepRates) > 0:
		var vals []json.RawMessage
		for _, x := range r.sweepRates {
			if math.IsInf(x, 1) {
				vals = append(vals, raw("inf"))
			} else {
				vals = append(vals, raw(x))
			}
		}
		sc.Sweep = &scenario.Sweep{Axes: map[string][]json.RawMessage{"load.request_rate": vals}, Mode: "grid"}
	case r.numRuns > 1:
		sc.Repeat = &scenario.Repeat{Count: int(r.numRuns)}
	}
	if r.multiTurn {
		p.applyMultiTurn(sc)
	} else if slices.ContainsFunc(p.given, func(f string) bool { return strings.HasPrefix(f, "--multi-turn-") || f == "--per-turn-input-len" }) {
		p.warnings = append(p.warnings, "the --multi-turn-* options have no effect without --multi-turn")
	}
	if sc.Sweep != nil && r.numRuns > 1 {
		p.warnings = append(p.warnings, "--num-runs is ignored in a sweep, as in vllm-bench")
	}
	if r.numPromptsFactor != nil && len(r.sweepConcurrency) == 0 {
		p.warnings = append(p.warnings, "--sweep-num-prompts-factor has no effect without --sweep-max-concurrency")
	}
}

// multiTurnTurns returns the number of turns per conversation: the
// inclusive range --multi-turn-min-turns..--multi-turn-max-turns, each 0
// meaning --multi-turn-num-turns (3).
func (r *rustNamespace) multiTurnTurns(given []string) (lo, hi int64) {
	n := int64(3)
	if slices.Contains(given, "--multi-turn-num-turns") {
		n = r.mtNumTurns
	}
	lo, hi = r.mtMinTurns, r.mtMaxTurns
	if lo == 0 {
		lo = n
	}
	if hi == 0 {
		hi = n
	}
	return lo, hi
}

// randomLens are the random dataset's lengths as the flags set them:
// input and output, each with its range ratio.
func (n *namespace) randomLens() (in, out int64) {
	in, out = n.randomInputLen, n.randomOutputLen
	if n.inputLen != nil {
		in = *n.inputLen
	}
	if n.outputLen != nil {
		out = *n.outputLen
	}
	return in, out
}

// validateMultiTurn applies vllm-bench's checks of --multi-turn, and
// refuses what vbench's conversations cannot run the same way yet.
func (p *parser) validateMultiTurn() error {
	n, r := p.ns, &p.ns.rust
	if !r.multiTurn {
		return nil
	}
	lo, hi := r.multiTurnTurns(p.given)
	switch {
	case n.backend != "openai-chat":
		return flagErr("--multi-turn", "needs --backend openai-chat")
	case n.datasetName != "random":
		return &Error{Flag: "--multi-turn", Unsupported: true,
			Msg: "vllm-bench's multi-turn mode with --dataset-name " + n.datasetName + " is not supported yet (random only: its synthetic conversations)"}
	case lo < 1:
		return flagErr(p.raw["--multi-turn-num-turns"], "a conversation has at least one turn")
	case lo > hi:
		return flagErr("--multi-turn-min-turns", fmt.Sprintf("%d is above the most turns, %d", lo, hi))
	case r.mtGlobalRatio != 0 || r.mtConvRatio != 0:
		return &Error{Flag: "--multi-turn-prefix-global-ratio", Unsupported: true,
			Msg: "vllm-bench's prefix-sharing multi-turn mode (each turn sent without its history) is not supported yet"}
	}
	in, _ := n.randomLens()
	if r.perTurnInputLen != 0 && r.perTurnInputLen != in {
		return &Error{Flag: "--per-turn-input-len", Unsupported: true,
			Msg: fmt.Sprintf("later turns %d tokens long while the first is %d is not supported yet (each turn of dataset.conversations has input_len)", r.perTurnInputLen, in)}
	}
	if !n.ignoreEOS && n.rangeRatio.Output != 0 {
		if _, ok := n.extraBody["min_tokens"]; !ok {
			return &Error{Flag: "--multi-turn", Unsupported: true,
				Msg: "vllm-bench holds each turn to its output length with min_tokens, which needs a fixed --random-output-len here: add --ignore-eos or leave out the output range ratio"}
		}
	}
	return nil
}

// applyMultiTurn maps --multi-turn onto dataset.conversations, as
// vllm-bench runs its synthetic conversations: --num-prompts
// conversations that all start at once, the turns drawn uniformly between
// the least and the most, each turn's user message --random-input-len and
// its answer --random-output-len tokens (with the range ratio), the whole
// history sent with each turn, an X-Session-ID header with the
// conversation's id, --multi-turn-delay-ms between an answer and the next
// turn, --multi-turn-concurrency (else --max-concurrency) turns in flight
// at most, a conversation ended by its first failed turn, and min_tokens
// holding each answer to its length unless --ignore-eos. The request rate
// and the steady-state window are not used.
func (p *parser) applyMultiTurn(sc *scenario.Scenario) {
	n, r := p.ns, &p.ns.rust
	lo, hi := r.multiTurnTurns(p.given)
	in, out := n.randomLens()
	dist := func(v int64, ratio float64) json.RawMessage {
		if ratio == 0 {
			b, _ := json.Marshal(v)
			return b
		}
		b, _ := json.Marshal(map[string]any{"uniform": map[string]any{
			"min": math.Floor(float64(v) * (1 - ratio)), "max": math.Ceil(float64(v) * (1 + ratio))}})
		return b
	}
	turns, _ := json.Marshal(lo)
	if hi != lo {
		turns, _ = json.Marshal(map[string]any{"uniform": map[string]any{"min": lo, "max": hi}})
	}
	spec := map[string]json.RawMessage{
		"conversations":  json.RawMessage(strconv.FormatInt(n.numPrompts, 10)),
		"turns":          turns,
		"input_len":      dist(in, n.rangeRatio.Input),
		"output_len":     dist(out, n.rangeRatio.Output),
		"think_time_ms":  json.RawMessage(strconv.FormatInt(r.mtDelayMs, 10)),
		"session_header": json.RawMessage(`"X-Session-ID"`),
		"shared_prefix":  json.RawMessage(`{"scope": "none", "len": 0}`),
		"on_failed_turn": json.RawMessage(`"end"`), // vllm-bench ends a conversation at its first failed turn
		"history":        json.RawMessage(`"server"`),
	}
	var ds scenario.Dataset
	raw, _ := json.Marshal(map[string]any{"conversations": spec})
	if err := json.Unmarshal(raw, &ds); err == nil {
		sc.Dataset = ds
	}
	if r.mtConcurrency != nil {
		c := int(*r.mtConcurrency)
		sc.Load.MaxConcurrency = &c
	}
	if !math.IsInf(float64(sc.Load.RequestRate), 1) {
		p.warnings = append(p.warnings, "--request-rate is not used with --multi-turn, as in vllm-bench: the conversations start at once")
		sc.Load.RequestRate = scenario.Float(math.Inf(1))
	}
	off := false
	sc.Metrics.SteadyState = &off
	if !n.ignoreEOS && n.rangeRatio.Output == 0 {
		if _, ok := sc.Sampling.ExtraBody["min_tokens"]; !ok {
			body := map[string]any{"min_tokens": out}
			for k, v := range sc.Sampling.ExtraBody {
				body[k] = v
			}
			sc.Sampling.ExtraBody = body
		}
	}
}
