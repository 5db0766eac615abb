package scenario

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
)

// relativeLimit is a gate limit such as "5%" or "2.5%".
var relativeLimit = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?%$`)

// Validate checks the rules of `vllm bench serve` that span several
// fields (its main_async validation) and the shape of the experiment
// fields; the schema checks each field on its own. LoadFiles calls it; call it
// again after changing a Scenario in Go. A broken rule is an [*Error] with
// one problem per rule, naming the field and what is allowed.
//
// Some of vLLM's rules are structural here and enforced by the schema: a
// generated dataset has no path field, and a field exists only under the
// kinds that read it. The rules of a dataset kind that span the scenario
// come from its registration (DatasetKind).
func (s *Scenario) Validate() error {
	var problems []Problem
	add := func(msg string, labels ...string) { problems = append(problems, NewProblem(msg, labels...)) }

	backend := s.Target.Backend
	if s.Seed < 0 || s.Seed > math.MaxUint32 {
		// vLLM seeds numpy's legacy generator with it, which takes 32 bits.
		add(fmt.Sprintf("invalid value %d (want 0 to 4294967295, as numpy's seed)", s.Seed), "seed")
	}

	if s.Metrics.TraceContext {
		for k := range s.Target.Headers {
			if strings.EqualFold(k, "traceparent") {
				add("metrics.trace_context sends a traceparent of its own with every request: remove this header or set metrics.trace_context: false", "target", "headers", k)
			}
		}
	}

	if u := s.Target.BaseURL; u != "" && s.Target.Simulator == nil {
		if msg := baseURLProblem(u); msg != "" {
			add(msg, "target", "base_url")
		}
	}
	if s.Target.BaseURL == "" && s.Target.Simulator == nil {
		if _, err := url.Parse("http://" + net.JoinHostPort(s.Target.Host, strconv.Itoa(s.Target.Port))); err != nil {
			shown := s.Target.Host
			if i := strings.LastIndex(shown, "@"); i >= 0 {
				shown = "<redacted>" + shown[i:] // user:password@host
			}
			add(fmt.Sprintf("invalid host %q: %v (want a host name or an IP address)", shown, errors.Unwrap(err)), "target", "host")
		}
	}
	if e := s.Target.Endpoint; e != "" && !strings.HasPrefix(e, "/") {
		// vLLM appends the endpoint to the base URL as it is.
		add(fmt.Sprintf("%q does not start with / (want a path such as /v1/completions, which is appended to the base URL)", e), "target", "endpoint")
	}
	for _, k := range slices.Sorted(maps.Keys(s.Target.Headers)) {
		switch {
		case !headerName(k):
			// The name is cut where a value would start ("Authorization:
			// Bearer sk-..."), and is no label: it may hold a secret.
			shown := fmt.Sprintf("%q", k)
			if i := strings.IndexAny(k, ": \t"); i >= 0 {
				shown = fmt.Sprintf("%q (the rest is not shown)", k[:i]+"...")
			}
			add(fmt.Sprintf("invalid header name %s: want an HTTP token (letters, digits and !#$%%&'*+-.^_`|~, no spaces or colons) mapped to its value", shown), "target", "headers")
		case strings.ContainsFunc(s.Target.Headers[k], headerValueControl):
			add(fmt.Sprintf("the value of header %q holds a control character such as a line break, which no HTTP header may (the value is not shown)", k), "target", "headers", k)
		}
	}

	l := s.Load
	if l.MaxConcurrency != nil && *l.MaxConcurrency <= 0 {
		add(fmt.Sprintf("invalid value %d (want > 0, or leave it out for no limit)", *l.MaxConcurrency), "load", "max_concurrency")
	}
	if r := l.RampUp; r != nil {
		if !l.RequestRate.IsInf() {
			add(fmt.Sprintf(`load.ramp_up needs load.request_rate "inf" (the ramp sets the rate), got %v`, float64(l.RequestRate)), "load", "ramp_up")
		}
		if r.Strategy != "linear" && r.Strategy != "exponential" {
			add(fmt.Sprintf("invalid value %q (want linear or exponential)", r.Strategy), "load", "ramp_up", "strategy")
		}
		if r.StartRPS < 0 || r.EndRPS < 0 {
			add(fmt.Sprintf("start_rps %v and end_rps %v must both be >= 0", r.StartRPS, r.EndRPS), "load", "ramp_up")
		}
		if r.StartRPS > r.EndRPS {
			add(fmt.Sprintf("start_rps %v exceeds end_rps %v (want start_rps <= end_rps)", r.StartRPS, r.EndRPS), "load", "ramp_up")
		}
		if r.Strategy == "exponential" && r.StartRPS == 0 {
			add("an exponential ramp-up cannot start at 0 (want start_rps > 0)", "load", "ramp_up", "start_rps")
		}
	}

	if set, compatible := s.Sampling.parameters(), OpenAICompatibleBackends(); len(set) > 0 && !slices.Contains(compatible, backend) {
		add(fmt.Sprintf("sampling.%s needs backend %s, got %q", strings.Join(set, ", sampling."), orList(compatible), backend), "sampling", set[0])
	}

	for _, k := range slices.Sorted(maps.Keys(s.Metrics.Goodput)) {
		switch v := s.Metrics.Goodput[k]; {
		case k != "ttft" && k != "tpot" && k != "e2el":
			add(fmt.Sprintf("unknown goodput metric %q (want ttft, tpot or e2el)", k), "metrics", "goodput", k)
		case !(v >= 0) || math.IsInf(v, 0):
			add(fmt.Sprintf("invalid value %v (want a number of milliseconds >= 0)", v), "metrics", "goodput", k)
		}
	}
	if n := len(s.Output.TimelineITLThresholds); n != 2 {
		add(fmt.Sprintf("want exactly two thresholds in milliseconds, got %d", n), "output", "timeline_itl_thresholds")
	}

	problems = append(problems, s.validateDataset()...)
	problems = append(problems, s.validateExperiments()...)
	if len(problems) > 0 {
		return newError(nil, problems...)
	}
	return nil
}

// validateExperiments checks sweep, repeat and compare.
func (s *Scenario) validateExperiments() []Problem {
	var problems []Problem
	add := func(msg string, labels ...string) { problems = append(problems, NewProblem(msg, labels...)) }
	if sw := s.Sweep; sw != nil {
		if len(sw.Axes) == 0 {
			add("want at least one axis", "sweep", "axes")
		}
		if sw.Mode != "grid" && sw.Mode != "zip" {
			add(fmt.Sprintf("invalid value %q (want grid or zip)", sw.Mode), "sweep", "mode")
		}
		lengths := map[int]bool{}
		for _, path := range slices.Sorted(maps.Keys(sw.Axes)) {
			lengths[len(sw.Axes[path])] = true
			labels, err := fieldPath(path)
			switch {
			case err != nil:
				add(err.Error(), "sweep", "axes", path)
			case slices.Contains([]string{"schema", "sweep", "repeat", "compare"}, labels[0]):
				add(fmt.Sprintf("a sweep cannot vary %s", labels[0]), "sweep", "axes", path)
			case len(sw.Axes[path]) == 0:
				add("want at least one value", "sweep", "axes", path)
			}
		}
		if sw.Mode == "zip" && len(lengths) > 1 {
			add("zip mode needs every axis to have the same number of values", "sweep", "axes")
		}
	}
	if r := s.Repeat; r != nil && r.Count < 1 {
		add(fmt.Sprintf("invalid value %d (want >= 1)", r.Count), "repeat", "count")
	}
	if c := s.Compare; c != nil {
		if len(c.Variants) < 2 {
			add(fmt.Sprintf("want at least two variants, got %d", len(c.Variants)), "compare", "variants")
		}
		if c.Baseline != "" && c.Variants[c.Baseline] == nil {
			add(fmt.Sprintf("%q is not a variant (want one of %s)", c.Baseline, strings.Join(slices.Sorted(maps.Keys(c.Variants)), ", ")), "compare", "baseline")
		}
		for i, g := range c.Gates {
			at := []cue.Selector{cue.Str("compare"), cue.Str("gates"), cue.Index(i)}
			addAt := func(msg string) {
				problems = append(problems, Problem{Path: formatPath(at), Msg: msg, elems: at})
			}
			switch {
			case g.Metric == "":
				addAt("a gate needs a metric")
			case g.MaxIncrease == "" && g.MaxDecrease == "":
				addAt(fmt.Sprintf("gate on %s needs max_increase or max_decrease", g.Metric))
			}
			for _, lim := range []string{g.MaxIncrease, g.MaxDecrease} {
				if lim != "" && !relativeLimit.MatchString(lim) {
					addAt(fmt.Sprintf("invalid limit %q (want a percentage such as \"5%%\")", lim))
				}
			}
		}
	}
	return problems
}

// parameters returns the names of the sampling parameters that are set
// and that vLLM allows only with OpenAI-compatible backends.
func (s Sampling) parameters() []string {
	var set []string
	for _, p := range []struct {
		name string
		set  bool
	}{
		{"temperature", s.Temperature != nil},
		{"top_p", s.TopP != nil},
		{"top_k", s.TopK != nil},
		{"min_p", s.MinP != nil},
		{"frequency_penalty", s.FrequencyPenalty != nil},
		{"presence_penalty", s.PresencePenalty != nil},
		{"repetition_penalty", s.RepetitionPenalty != nil},
	} {
		if p.set {
			set = append(set, p.name)
		}
	}
	return set
}

// baseURLProblem says what is wrong with a server's base URL, or "": it
// needs the http:// or https:// scheme and a host (vLLM's client would
// fail every request with an unsupported or missing scheme).
func baseURLProblem(raw string) string {
	shown := RedactURL(raw) // the text of url.Parse's error holds raw: not shown
	if !strings.Contains(raw, "://") {
		return fmt.Sprintf("base URL %q has no http:// or https:// scheme (want e.g. http://%s)", shown, strings.TrimPrefix(shown, "//"))
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Sprintf("invalid base URL %q: %v", shown, errors.Unwrap(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("base URL %q has scheme %q (want http:// or https://)", shown, u.Scheme)
	case u.Host == "":
		return fmt.Sprintf("base URL %q has no host (want e.g. http://localhost:8000)", shown)
	}
	return ""
}

// headerName reports whether k is a valid HTTP header field name, a token
// of RFC 9110: one or more letters, digits and !#$%&'*+-.^_`|~.
func headerName(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// headerValueControl reports a character no HTTP header value may hold:
// a control character other than a tab (as net/http refuses them).
func headerValueControl(r rune) bool {
	return r < ' ' && r != '\t' || r == 0x7f
}
