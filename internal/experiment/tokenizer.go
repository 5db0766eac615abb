package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"

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
// are used, as vLLM's Rust client does. One line on env.Stderr says which
// tokenizer was chosen and why. It returns nil with skip_init.
func loadTokenizerEnv(ctx context.Context, sc *scenario.Scenario, env Env) (tokenizer.Tokenizer, string, error) {
	if sc.Tokenizer.SkipInit {
		return nil, "", nil
	}
	stderr := env.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
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
	res, err := tokenizer.Resolve(ctx, tokenizer.Spec{Name: name, Revision: sc.Tokenizer.Revision}, hub.FromEnv(getenv))
	if err == nil {
		fmt.Fprintf(stderr, "tokenizer: %s\n", res.Source)
		return res.Tokenizer, name, nil
	}
	if sc.Target.Simulator != nil && errors.Is(err, tokenizer.ErrNotLocal) {
		return nil, name, fmt.Errorf("%w (with the built-in simulator, set tokenizer.name to a local or built-in tokenizer, e.g. \"o200k_base\")", err)
	}
	if !errors.Is(err, tokenizer.ErrNotLocal) {
		return nil, name, err
	}
	base := serverBase(sc)
	model := sc.Target.ServedModelName
	if model == "" {
		model = sc.Target.Model
	}
	api, aerr := backend.NewServerAPI(base, model, sc.Target.Headers, sc.Target.Insecure, sc.Target.CAFile)
	if aerr != nil {
		return nil, name, fmt.Errorf("%w; falling back to the server's tokenizer at %s failed too: %w", err, base, aerr)
	}
	srv, serr := tokenizer.NewServer(ctx, name, api)
	if serr != nil {
		return nil, name, fmt.Errorf("%w; falling back to the server's tokenizer at %s failed too: %w", err, base, serr)
	}
	fmt.Fprintf(stderr, "tokenizer: the server's /tokenize and /detokenize at %s, because %s\n", base, reason(err))
	return srv, name, nil
}

// checkTokenizerName is Check's part for the tokenizer: the name
// loadTokenizerEnv would resolve must not be a misspelt built-in encoding
// (tokenizer.CheckName), which would otherwise be taken for a Hub id.
func checkTokenizerName(sc *scenario.Scenario) error {
	if sc.Tokenizer.SkipInit {
		return nil
	}
	name, field := sc.Tokenizer.Name, "tokenizer.name"
	if name == "" {
		name, field = sc.Target.Model, "target.model (the default tokenizer.name)"
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

// serverBase is the target's base URL, as resolveTarget computes it for a
// server target.
func serverBase(sc *scenario.Scenario) string {
	if sc.Target.BaseURL != "" {
		return strings.TrimSuffix(sc.Target.BaseURL, "/")
	}
	return "http://" + net.JoinHostPort(sc.Target.Host, strconv.Itoa(sc.Target.Port))
}
