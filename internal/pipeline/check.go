package pipeline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/dataset"
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

// CheckRun reports, before anything runs, what in a schema-valid scenario
// of a single run vbench cannot run: a dataset kind that is not registered, a backend
// vbench does not implement, an endpoint that does not end with the
// backend's URL suffix (or "profile"), a tokenizer name that is a misspelt
// built-in encoding (tokenizer.CheckName), a dataset statistics plot with
// no result file to name it after (checkDatasetStats), or more requests
// than memory holds (checkMemory). Its errors wrap ErrUnsupported.
func CheckRun(sc *scenario.Scenario) error { return checkRun(sc) }

// Unsupportedf returns an error of the kind CheckRun returns: its message is
// the formatted text alone, and it matches ErrUnsupported.
func Unsupportedf(format string, args ...any) error { return unsupported(format, args...) }

// checkRun is Check for a single run.
func checkRun(sc *scenario.Scenario) error {
	if sc.Target.Server != nil && sc.Target.Simulator != nil {
		return unsupported("target.server and target.simulator are both set: the simulator is vbench's own in-process server, so a run has one or the other")
	}
	if t := sc.Target; t.ProfileBatchThreshold > 0 && !t.Profile {
		return unsupported("target.profile_batch_threshold needs target.profile: true (vllm-bench's --profile-batch-threshold needs --profile)")
	}
	if t := sc.Target; t.ProfileDuration > 0 && t.ProfileBatchThreshold <= 0 {
		return unsupported("target.profile_duration needs target.profile_batch_threshold: without it the profiler runs for the whole run")
	}
	if r, ok := sc.Dataset.Spec.(*dataset.RandomSpec); ok && r.PromptTokenIDs && sc.Target.Backend != "vllm" && sc.Target.Backend != "openai" {
		return unsupported("dataset.random.prompt_token_ids sends token-id prompts, which only the completions backends (vllm, openai) take; not %s", sc.Target.Backend)
	}
	if err := dataset.Check(sc.Dataset); err != nil {
		return unsupported("%v", err)
	}
	if t := sc.Target; len(t.LoraModules) > 1 && t.LoraAssignment == "random" {
		if k, _ := dataset.Lookup(sc.Dataset.Name); k.PythonRandom {
			return unsupported("target.lora_assignment \"random\" with dataset %s is not supported yet: vLLM draws the modules from the Python random stream that dataset left, which vbench does not reproduce; use \"round-robin\"", k.Name)
		}
	}
	name := sc.Target.Backend
	kind, ok := backend.Lookup(name)
	if !ok {
		return unsupported("unknown backend %q", name)
	}
	if !kind.Supported() {
		return unsupported("%s", backend.UnsupportedMessage(name))
	}
	// The URL is the base (the simulator's, or http://host:port, neither of
	// which ends with a suffix) followed by the endpoint.
	url := sc.Target.Endpoint
	if sc.Target.Simulator == nil && sc.Target.BaseURL != "" {
		url = strings.TrimSuffix(sc.Target.BaseURL, "/") + url
	}
	if !kind.AcceptsURL(url) {
		return unsupported("target.endpoint %q: the %s URL must end with one of: {%s, 'profile'} (e.g. %s)",
			sc.Target.Endpoint, kind.APIName, kind.Suffixes(), kind.ExampleEndpoint())
	}
	if err := checkTokenizerName(sc); err != nil {
		return err
	}
	if err := checkDatasetStats(sc); err != nil {
		return err
	}
	return checkMemory(sc)
}
