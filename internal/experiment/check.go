package experiment

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/scenario"
)

// ErrUnsupported is wrapped by the errors of Check: the scenario is valid
// against the schema but asks for something vbench cannot run (yet).
var ErrUnsupported = errors.New("unsupported scenario")

// unsupportedError is an error of Check: its message is the reason alone,
// and it matches ErrUnsupported.
type unsupportedError struct{ msg string }

func (e *unsupportedError) Error() string        { return e.msg }
func (e *unsupportedError) Is(target error) bool { return target == ErrUnsupported }

func unsupported(format string, args ...any) error {
	return &unsupportedError{msg: fmt.Sprintf(format, args...)}
}

// Check reports, before anything runs, what in a schema-valid scenario
// vbench cannot run: a dataset other than random, a backend vbench does not
// implement, an endpoint that does not end with the backend's URL suffix
// (or "profile"), or a tokenizer name that is a misspelt built-in encoding
// (tokenizer.CheckName). An experiment is checked run by run. Its errors
// wrap ErrUnsupported.
func Check(sc *scenario.Scenario) error {
	if IsExperiment(sc) {
		plan, err := Expand(sc)
		if err != nil {
			return err
		}
		for i := range plan.Runs {
			if err := checkRun(plan.Runs[i].Scenario); err != nil {
				return &unsupportedError{msg: fmt.Sprintf("run %s: %v", plan.Runs[i].Label, err)}
			}
		}
		return nil
	}
	return checkRun(sc)
}

// checkRun is Check for a single run.
func checkRun(sc *scenario.Scenario) error {
	if kind := sc.Dataset.Kind(); kind != "random" {
		return unsupported("dataset %s is not supported by vbench yet (supported: random)", kind)
	}
	name := sc.Target.Backend
	kind, ok := backend.Lookup(name)
	if !ok {
		return unsupported("unknown backend %q", name)
	}
	if !kind.Supported {
		return unsupported("backend %q is not supported by vbench yet (supported: vllm, openai, openai-chat)", name)
	}
	// The URL is the base (the simulator's, or http://host:port, neither of
	// which ends with a suffix) followed by the endpoint.
	url := sc.Target.Endpoint
	if sc.Target.Simulator == nil && sc.Target.BaseURL != "" {
		url = strings.TrimSuffix(sc.Target.BaseURL, "/") + url
	}
	if !strings.HasSuffix(url, kind.URLSuffix) && !strings.HasSuffix(url, "profile") {
		return unsupported("target.endpoint %q: the %s URL must end with one of: {'%s', 'profile'} (e.g. /v1/%s)",
			sc.Target.Endpoint, kind.APIName, kind.URLSuffix, kind.URLSuffix)
	}
	return checkTokenizerName(sc)
}
