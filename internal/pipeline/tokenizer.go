package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/hub"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// modeWarning makes the tokenizer-mode warning appear once per process.
var modeWarning sync.Once

// loadTokenizerEnv resolves the scenario's tokenizer as vLLM does: the
// name (tokenizer.name, else the model) is a built-in tiktoken encoding, a
// local directory or file, or a Hugging Face Hub repository (at
// tokenizer.revision), downloaded into the Hugging Face cache. When none
// of these loads and the target is a server (not the built-in simulator,
// which needs a client tokenizer), the server's /tokenize and /detokenize
// are used, as vLLM's Rust client does. One diagnostic line says which
// tokenizer was chosen and why. It returns nil with skip_init.
func loadTokenizerEnv(ctx context.Context, sc *scenario.Scenario, env Env, ep *endpoint) (tokenizer.Tokenizer, string, error) {
	if sc.Tokenizer.SkipInit {
		return nil, "", nil
	}
	stderr := lineWriter(env.observer().Diagnostic)
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if mode := sc.Tokenizer.Mode; mode != "" && mode != "auto" {
		modeWarning.Do(func() {
			fmt.Fprintf(stderr, "WARNING: tokenizer mode %q is accepted for compatibility; vbench always uses its own tokenizer (tokenizer.json, tiktoken, or the server's /tokenize), as vLLM's Rust client does.\n", mode)
		})
	}
	name := sc.Tokenizer.Name
	if name == "" {
		name = sc.Target.Model
	}
	if name == "" && sc.Target.Simulator != nil {
		name = sc.Target.Simulator.Model
	}
	res, err := tokenizer.Resolve(ctx, tokenizer.Spec{Name: name, Revision: sc.Tokenizer.Revision, Progress: stderr}, hub.FromEnv(getenv))
	if err == nil {
		fmt.Fprintf(stderr, "tokenizer: %s\n", res.Source)
		return res.Tokenizer, name, nil
	}
	if sc.Target.Simulator != nil && errors.Is(err, tokenizer.ErrNotLocal) {
		// Bad input (exit 2): the simulator has no /tokenize to fall back on.
		return nil, name, InputError(fmt.Errorf("%w (with the built-in simulator, set tokenizer.name to a local or built-in tokenizer, e.g. \"o200k_base\")", err))
	}
	if !errors.Is(err, tokenizer.ErrNotLocal) {
		return nil, name, err
	}
	base := ep.base
	model := sc.Target.ServedModelName
	if model == "" {
		model = sc.Target.Model
	}
	shown := scenario.RedactURL(base) // for messages: no password
	api, aerr := ep.serverAPI(model, env)
	if aerr != nil {
		return nil, name, fmt.Errorf("%w; falling back to the server's tokenizer at %s failed too: %w", err, shown, aerr)
	}
	fmt.Fprintf(stderr, "tokenizer: no local tokenizer for %s; asking the server's /tokenize at %s (each call times out after %s)\n", name, shown, api.Timeout())
	srv, serr := tokenizer.NewServer(ctx, name, api)
	if serr != nil {
		return nil, name, fmt.Errorf("%w; falling back to the server's tokenizer at %s failed too: %w", err, shown, serr)
	}
	vocab := fmt.Sprintf("a vocabulary of %d tokens from its /v1/models", srv.VocabSize())
	if srv.VocabEstimated() {
		vocab = fmt.Sprintf("a vocabulary assumed to hold %d tokens", srv.VocabSize())
	}
	fmt.Fprintf(stderr, "tokenizer: the server's /tokenize and /detokenize at %s (%s dialect, %s), because %s\n", shown, api.Dialect(), vocab, reason(err))
	return srv, name, nil
}

// envServerTimeout names the environment variable that bounds each call to
// the server's /tokenize, /detokenize and /v1/models (a Go duration such
// as 10s; default backend.DefaultServerTimeout).
const envServerTimeout = "VBENCH_SERVER_TIMEOUT"

// newServerAPI returns the client of the server's auxiliary endpoints for
// a run: model is sent with /tokenize; every call carries vbench's
// User-Agent, Authorization: Bearer $OPENAI_API_KEY when it is set, and
// the target's headers, as the timed requests do, and is bounded by
// $VBENCH_SERVER_TIMEOUT.
func newServerAPI(sc *scenario.Scenario, base, model string, env Env) (*backend.ServerAPI, error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var timeout time.Duration
	if v := getenv(envServerTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("$%s=%q: want a positive duration such as 10s or 2m", envServerTimeout, v)
		}
		timeout = d
	}
	return backend.NewServerAPIWith(base, backend.ServerOptions{
		Model:    model,
		APIKey:   getenv("OPENAI_API_KEY"),
		Headers:  sc.Target.Headers,
		Insecure: sc.Target.Insecure,
		CAFile:   sc.Target.CAFile,
		Timeout:  timeout,
	})
}

// alignTokenizer is the server tokenizer that prompt alignment calls
// (dataset.Align): the run's ServerAPI, saying on stderr what it waits for
// (once, at the first call), how far it got (at most every 10 s), and the
// first failure, which vLLM's "/tokenize unavailable" line does not tell.
type alignTokenizer struct {
	api    *backend.ServerAPI
	stderr io.Writer

	mu       sync.Mutex
	started  time.Time
	last     time.Time
	calls    int
	failed   bool
	progress time.Duration // between progress lines
}

// newAlignTokenizer returns the server tokenizer for aligning a run's
// prompts through api (made with the model id: vLLM's alignment uses the
// id, not the served name), telling its progress on stderr.
func newAlignTokenizer(api *backend.ServerAPI, stderr io.Writer) *alignTokenizer {
	if stderr == nil {
		stderr = io.Discard
	}
	return &alignTokenizer{api: api, stderr: stderr, progress: 10 * time.Second}
}

// Tokenize calls the server's /tokenize.
func (a *alignTokenizer) Tokenize(ctx context.Context, prompt string) ([]int, error) {
	a.begin()
	ids, err := a.api.Tokenize(ctx, prompt)
	a.end(ctx, err)
	return ids, err
}

// Detokenize calls the server's /detokenize.
func (a *alignTokenizer) Detokenize(ctx context.Context, ids []int) (string, error) {
	a.begin()
	text, err := a.api.Detokenize(ctx, ids)
	a.end(ctx, err)
	return text, err
}

func (a *alignTokenizer) begin() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.started.IsZero() {
		a.started = time.Now()
		a.last = a.started
		fmt.Fprintf(a.stderr, "aligning prompts with the server's /tokenize at %s (each call times out after %s)\n", a.api.Base(), a.api.Timeout())
	}
}

func (a *alignTokenizer) end(ctx context.Context, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	if err != nil && !a.failed && ctx.Err() == nil {
		a.failed = true
		fmt.Fprintf(a.stderr, "vbench: aligning prompts: %v\n", err)
	}
	if now := time.Now(); now.Sub(a.last) >= a.progress {
		a.last = now
		fmt.Fprintf(a.stderr, "aligning prompts: %d calls to /tokenize and /detokenize in %s\n", a.calls, now.Sub(a.started).Round(time.Second))
	}
}

// checkTokenizerName is Check's part for the tokenizer: the name
// loadTokenizerEnv would resolve must not be a misspelt built-in encoding
// (tokenizer.CheckName), which would otherwise be taken for a Hub id.
func checkTokenizerName(sc *scenario.Scenario) error {
	if sc.Tokenizer.SkipInit {
		return nil
	}
	name, field := sc.Tokenizer.Name, "tokenizer.name (--tokenizer)"
	if name == "" {
		name, field = sc.Target.Model, "target.model (--model, the default tokenizer)"
	}
	if name == "" && sc.Target.Simulator != nil {
		name, field = sc.Target.Simulator.Model, "target.simulator.model (the default tokenizer.name)"
	}
	if err := tokenizer.CheckName(name); err != nil {
		return unsupported("%s: %v", field, err)
	}
	return nil
}

// reason turns a resolution error into the end of a sentence.
func reason(err error) string {
	s := strings.TrimPrefix(err.Error(), tokenizer.ErrNotLocal.Error()+": ")
	return "no local tokenizer loaded: " + s
}

// serverBase is the base URL of a server target (not the simulator).
func serverBase(sc *scenario.Scenario) string { return sc.Target.ServerURL() }
