package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

// Env is the process state a run uses.
type Env struct {
	// KeepRecords keeps every record of the run in Outcome.Records, in
	// request order, at a cost in memory per request; without it a run
	// holds only its requests in flight (the records file, when saved, is
	// the durable copy).
	KeepRecords bool
	// Stdout receives the console output vLLM prints (the result block).
	Stdout io.Writer
	// Stderr receives progress and diagnostics.
	Stderr io.Writer
	// Getenv reads an environment variable (OPENAI_API_KEY).
	Getenv func(string) string
	// Now is the wall clock (result date, file names).
	Now func() time.Time
	// Argv, when set, runs in vbench serve's argv mode (see ArgvMode).
	Argv *ArgvMode
	// Observer, when set, is told what the run does instead of the
	// console (a report.Console on Stdout and Stderr); report.Silent{}
	// makes the run silent. The progress bar is drawn on Stderr either
	// way (output.disable_tqdm turns it off).
	Observer report.RunObserver
	// Shard, when set, says how the shards of a split run start together
	// (vbench run --start-at, --clock; see ShardSync).
	Shard *ShardSync
}

// observer is the run's observer: env.Observer, else the console.
func (env Env) observer() report.RunObserver {
	if env.Observer != nil {
		return env.Observer
	}
	// vbench serve keeps stdout to vLLM's output; the health line is vbench's.
	return &report.Console{Stdout: env.Stdout, Stderr: env.Stderr, HealthToStderr: !env.Argv.extras()}
}

// lineWriter writes whole lines to an observer's Message or Diagnostic.
type lineWriter func(text string)

// Write passes each line of p (without its newline) to w.
func (w lineWriter) Write(p []byte) (int, error) {
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line != "" {
			w(strings.TrimSuffix(line, "\n"))
		}
	}
	return len(p), nil
}

// ErrAllFailed is returned (wrapped) when a run completed but every request failed.
var ErrAllFailed = errors.New("all requests failed")

// target is a resolved endpoint: where requests go and what model they name.
type target struct {
	base      string // base URL without trailing slash
	apiURL    string // base + endpoint
	modelName string // payload "model"
	modelID   string // tokenizer default and result model_id
	closeSim  func()
	ep        *endpoint
}

// endpoint is a run's server: its base URL, derived once (when the
// built-in simulator starts, for a simulator target), and its server-API
// client (/v1/models, /tokenize, /detokenize), made once on first use and
// shared by the tokenizer, the model lookup and the dataset's alignment.
type endpoint struct {
	sc   *scenario.Scenario
	base string
	api  *backend.ServerAPI
}

// newEndpoint is the endpoint of sc: its base URL is known now for a
// server target, and set by resolveTarget for the simulator.
func newEndpoint(sc *scenario.Scenario) *endpoint {
	e := &endpoint{sc: sc}
	if sc.Target.Simulator == nil {
		e.base = serverBase(sc)
	}
	return e
}

// serverAPI is the server-API client, sending model with /tokenize; the
// first call makes it (newServerAPI) with env's OPENAI_API_KEY and
// $VBENCH_SERVER_TIMEOUT, and later calls share its connections and the
// /tokenize dialect it found.
func (e *endpoint) serverAPI(model string, env Env) (*backend.ServerAPI, error) {
	if e.api == nil {
		api, err := newServerAPI(e.sc, e.base, "", env)
		if err != nil {
			return nil, err
		}
		e.api = api
	}
	return e.api.WithModel(model), nil
}

// closeIdle closes the server-API client's idle connections (see
// backend.ServerAPI.CloseIdleConnections), if it was made.
func (e *endpoint) closeIdle() {
	if e.api != nil {
		e.api.CloseIdleConnections()
	}
}

// resolveTarget starts the built-in simulator when the scenario asks for
// it, and settles the model name and id (asking /v1/models when unset).
func resolveTarget(ctx context.Context, sc *scenario.Scenario, tok tokenizer.Tokenizer, env Env, ep *endpoint) (*target, error) {
	t := &target{closeSim: func() {}}
	if s := sc.Target.Simulator; s != nil {
		cfg := sim.DefaultConfig()
		cfg.TTFT = msDuration(s.TTFTMs)
		cfg.ITL = msDuration(s.ITLMs)
		cfg.ITLPerRunning = msDuration(s.ITLPerRunningMs)
		cfg.Jitter = msDuration(s.JitterMs)
		cfg.PrefillPerToken = time.Duration(s.PrefillUsPerToken * float64(time.Microsecond))
		if c := s.CachedPrefillUsPerToken; c != nil {
			d := time.Duration(*c * float64(time.Microsecond))
			cfg.CachedPrefillPerToken = &d
		}
		cfg.DefaultOutputLen = s.OutputLen
		cfg.Model = s.Model
		if sc.Target.Model != "" {
			cfg.Model = sc.Target.Model
		}
		cfg.Seed, cfg.ReasoningTokens, cfg.Bare, cfg.MaxConns = s.Seed, s.ReasoningTokens, s.Bare, s.MaxConns
		for _, spec := range s.Faults {
			f, err := sim.ParseFault(spec)
			if err != nil {
				return nil, err
			}
			cfg.Faults = append(cfg.Faults, f)
		}
		if sd := s.SpecDecode; sd != nil {
			cfg.SpecDecodeTokens, cfg.SpecDecodeAcceptance = sd.Tokens, sd.Acceptance
		}
		if tok != nil {
			cfg.Tokenizer = SimTokenizer(tok)
		}
		srv, err := sim.Start(cfg, "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("starting the built-in simulator: %w", err)
		}
		ep.base = srv.URL()
		t.closeSim = func() { _ = srv.Close() }
	}
	t.base, t.ep = ep.base, ep
	t.apiURL = t.base + sc.Target.Endpoint
	t.modelID = sc.Target.Model
	t.modelName = sc.Target.Model
	if sc.Target.ServedModelName != "" {
		t.modelName = sc.Target.ServedModelName
	}
	if t.modelID == "" {
		env.observer().Message("Model not specified, fetching first model from server...")
		api, err := ep.serverAPI("", env)
		if err != nil {
			t.closeSim()
			return nil, err
		}
		id, root, err := api.Models(ctx)
		if err != nil {
			t.closeSim()
			return nil, err
		}
		env.observer().Message(fmt.Sprintf("First model name: %s, first model id: %s", id, root))
		t.modelName, t.modelID = id, root
	}
	return t, nil
}

// SimTokenizer adapts a client tokenizer to the simulator's interface, so
// the simulator counts tokens exactly as the client does.
func SimTokenizer(t tokenizer.Tokenizer) sim.Tokenizer { return simTokenizer{t} }

type simTokenizer struct{ tokenizer.Tokenizer }

func (s simTokenizer) Encode(text string) []int { return s.Tokenizer.Encode(text, false) }

// requestIDPrefix is the scenario's prefix or vLLM's default bench-<8 hex>-.
func requestIDPrefix(sc *scenario.Scenario) string {
	if sc.Target.RequestIDPrefix != "" {
		return sc.Target.RequestIDPrefix
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "bench-" + hex.EncodeToString(b[:]) + "-"
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// sendAll sends req n times through the dispatcher, all released at once
// with at most limit in flight (0 = all), and returns their records; used
// for warmups and the ready check.
func sendAll(ctx context.Context, c *backend.Client, req backend.Prepared, n, limit int) []*record.Record {
	return run.Run(ctx, run.Plan{Offsets: make([]time.Duration, n), MaxConcurrency: limit},
		run.SenderFunc(func(ctx context.Context, _ int, rec *record.Record, now func() time.Duration) {
			c.Send(ctx, &req, rec, now)
		})).Records
}
