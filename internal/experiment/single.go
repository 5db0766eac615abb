// Package experiment executes scenarios: it resolves a scenario into its
// dataset, backend and schedule stages, runs them, and writes the reports.
// Sweeps, repeats and comparisons expand into single runs here.
package experiment

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

// Env is the process state a run uses.
type Env struct {
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
}

// resolveTarget starts the built-in simulator when the scenario asks for
// it, and settles the model name and id (asking /v1/models when unset).
func resolveTarget(ctx context.Context, sc *scenario.Scenario, tok tokenizer.Tokenizer, env Env) (*target, error) {
	t := &target{closeSim: func() {}}
	if s := sc.Target.Simulator; s != nil {
		cfg := sim.DefaultConfig()
		cfg.TTFT = msDuration(s.TTFTMs)
		cfg.ITL = msDuration(s.ITLMs)
		cfg.Jitter = msDuration(s.JitterMs)
		cfg.PrefillPerToken = time.Duration(s.PrefillUsPerToken * float64(time.Microsecond))
		cfg.DefaultOutputLen = s.OutputLen
		cfg.Model = s.Model
		if sc.Target.Model != "" {
			cfg.Model = sc.Target.Model
		}
		cfg.Seed = s.Seed
		if tok != nil {
			cfg.Tokenizer = SimTokenizer(tok)
		}
		srv, err := sim.Start(cfg, "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("starting the built-in simulator: %w", err)
		}
		t.base = srv.URL()
		t.closeSim = func() { _ = srv.Close() }
	} else if sc.Target.BaseURL != "" {
		t.base = strings.TrimSuffix(sc.Target.BaseURL, "/")
	} else {
		t.base = "http://" + net.JoinHostPort(sc.Target.Host, strconv.Itoa(sc.Target.Port))
	}
	t.apiURL = t.base + sc.Target.Endpoint
	t.modelID = sc.Target.Model
	t.modelName = sc.Target.Model
	if sc.Target.ServedModelName != "" {
		t.modelName = sc.Target.ServedModelName
	}
	if t.modelID == "" {
		fmt.Fprintln(env.Stdout, "Model not specified, fetching first model from server...")
		api, err := newServerAPI(sc, t.base, "", env)
		if err != nil {
			t.closeSim()
			return nil, err
		}
		id, root, err := api.Models(ctx)
		if err != nil {
			t.closeSim()
			return nil, err
		}
		fmt.Fprintf(env.Stdout, "First model name: %s, first model id: %s\n", id, root)
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

// sendAll sends reqs concurrently (at most limit at once, 0 = all) and
// returns their records; used for warmups and the ready check.
func sendAll(ctx context.Context, c *backend.Client, reqs []backend.Prepared, limit int) []*record.Record {
	recs := make([]*record.Record, len(reqs))
	done := make(chan struct{}, len(reqs))
	var sem chan struct{}
	if limit > 0 {
		sem = make(chan struct{}, limit)
	}
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	for i := range reqs {
		recs[i] = &record.Record{Index: i}
		go func() {
			defer func() { done <- struct{}{} }()
			if sem != nil {
				sem <- struct{}{}
				defer func() { <-sem }()
			}
			c.Send(ctx, &reqs[i], recs[i], now)
		}()
	}
	for range reqs {
		<-done
	}
	return recs
}
