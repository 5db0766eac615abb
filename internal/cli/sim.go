package cli

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

const simDoc = `Serve a deterministic simulated OpenAI-compatible LLM server.

It answers /v1/completions, /v1/chat/completions, the Responses API's
/v1/responses and the Messages API's /v1/messages (streaming and not), the
pooling endpoints /v1/embeddings, /pooling and /rerank, /v1/models,
/tokenize, /detokenize, /health and /metrics (vLLM-style names), with a
latency model scheduled on absolute times: the first token after
--ttft (plus --prefill-per-token per prompt token), then one token every
--itl, with optional deterministic --jitter. Its /metrics also reports how
late it wrote each event, so server-side delays are not blamed on the client.

It runs until interrupted.`

const simExamples = `  vbench sim
  vbench sim --addr 127.0.0.1:9000 --ttft 200ms --itl 20ms --jitter 2ms
  vbench sim --tokenizer cl100k_base --fail-every 10
  vbench sim --close-after-stream --drop-every 50   # connection faults
  vbench sim --spec-decode-tokens 3 --spec-decode-acceptance 0.5
  vbench sim --reasoning-tokens 32                   # a reasoning model
  vbench sim --addr 127.0.0.1:0 --url-file sim.url   # a free port, written to sim.url`

func newSimCmd(p Process) *cobra.Command {
	cfg := sim.DefaultConfig()
	var addr, tok, urlFile, host string
	var port int
	cmd := &cobra.Command{
		Use:     "sim",
		Short:   "Serve a simulated LLM endpoint",
		Long:    simDoc,
		Example: simExamples,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if tok != "" {
				t, err := tokenizer.Builtin(tok)
				if err != nil {
					return usageErr(fmt.Errorf("--tokenizer: %w", err))
				}
				cfg.Tokenizer = pipeline.SimTokenizer(t)
			}
			cfg.OnCacheReset = func(route string) { fmt.Fprintf(p.Stdout, "POST %s: cache reset\n", route) }
			if cmd.Flags().Changed("host") || cmd.Flags().Changed("port") {
				h, p, err := net.SplitHostPort(addr)
				if err != nil {
					return usageErr(fmt.Errorf("--addr: %w", err))
				}
				if cmd.Flags().Changed("host") {
					h = host
				}
				if cmd.Flags().Changed("port") {
					p = strconv.Itoa(port)
				}
				addr = net.JoinHostPort(h, p)
			}
			srv, err := sim.Start(cfg, addr)
			if err != nil {
				return simStartErr(err)
			}
			if urlFile != "" {
				if err := report.WriteResultFile(urlFile, []byte(srv.URL()+"\n"), false); err != nil {
					_ = srv.Close()
					return failErr(fmt.Errorf("--url-file: %w", err))
				}
			}
			fmt.Fprintf(p.Stdout, "vbench sim serving %s on %s (ttft %v, itl %v)\n", cfg.Model, srv.URL(), cfg.TTFT, cfg.ITL)
			<-cmd.Context().Done()
			return srv.Close()
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8000", "listen address (port 0 picks a free port)")
	f.StringVar(&host, "host", "", "listen host, replacing --addr's (vllm serve's flag)")
	f.IntVarP(&port, "port", "p", 0, "listen port, replacing --addr's (vllm serve's flag)")
	f.DurationVar(&cfg.TTFT, "ttft", cfg.TTFT, "time to first token")
	f.DurationVar(&cfg.ITL, "itl", cfg.ITL, "inter-token latency")
	f.DurationVar(&cfg.Jitter, "jitter", cfg.Jitter, "standard deviation of deterministic per-token jitter")
	f.IntVar(&cfg.MaxNumSeqs, "max-num-seqs", cfg.MaxNumSeqs, "most generation requests running at once, the rest wait (vLLM's --max-num-seqs; 0: no limit)")
	f.IntVar(&cfg.MaxNumBatchedTokens, "max-num-batched-tokens", cfg.MaxNumBatchedTokens, "most prompt tokens prefilled per engine step: longer prompts take one ITL more per extra step (vLLM's --max-num-batched-tokens; 0: no limit)")
	f.DurationVar(&cfg.ITLPerRunning, "itl-per-running", cfg.ITLPerRunning, "extra inter-token latency per request running when a request is admitted (itself included): latency that grows with load")
	f.DurationVar(&cfg.PrefillPerToken, "prefill-per-token", cfg.PrefillPerToken, "extra time to first token per prompt token")
	f.Var(optDuration{&cfg.CachedPrefillPerToken}, "cached-prefill-per-token", "extra time to first token per prompt token found in the prefix cache (default: --prefill-per-token's)")
	f.IntVar(&cfg.DefaultOutputLen, "output-len", cfg.DefaultOutputLen, "output tokens when a request sets no max_tokens")
	f.StringVar(&cfg.Model, "model", cfg.Model, "served model name")
	f.Int64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the jitter, natural EOS lengths and text")
	f.IntVar(&cfg.FailEvery, "fail-every", cfg.FailEvery, "answer every Nth request with HTTP 500 (0 = never)")
	f.BoolVar(&cfg.CloseAfterStream, "close-after-stream", cfg.CloseAfterStream, "close each connection after its streamed response while advertising keep-alive, as llama.cpp's server does")
	f.DurationVar(&cfg.CloseAfterStreamDelay, "close-after-stream-delay", cfg.CloseAfterStreamDelay, "with --close-after-stream, how long after the response the connection is closed")
	f.Var(faultFlag{&cfg.Faults}, "fault", "inject a fault into the requests it hits, KIND:every=N or KIND:rate=P; KIND is 500, 503, 429 (with Retry-After), reset (before the headers), stall (until the client gives up), disconnect (a stream cut after half its tokens), slow-headers (the answer held back 1 s, or D with slow-headers:every=N,delay=D), or a stream written oddly: sse-nospace, sse-comments, sse-crlf, no-done, bad-json, huge (a 1 MiB first event), split (7-byte writes), usage-in-last (usage in the last content chunk), empty-final (the finish reason in an empty chunk of its own); repeat for several (the first that hits a request wins)")
	f.IntVar(&cfg.MaxConns, "max-conns", cfg.MaxConns, "hold at most N client connections open and reset any more at once, as a server with a small listen backlog under a burst (0 = no limit)")
	f.BoolVar(&cfg.Bare, "bare", cfg.Bare, "be a bare OpenAI-compatible server: /v1/models without root, max_model_len or permission, and no /tokenize, /detokenize or /metrics")
	f.IntVar(&cfg.DropEvery, "drop-every", cfg.DropEvery, "read every Nth request and close its connection without answering (0 = never)")
	f.DurationVar(&cfg.PrefillPerMediaItem, "prefill-per-media-item", cfg.PrefillPerMediaItem, "time to first token added per image, video frame or audio clip of a chat request")
	f.IntVar(&cfg.ReasoningTokens, "reasoning-tokens", cfg.ReasoningTokens, "make the first N tokens of every chat, Responses and Messages answer reasoning (a reasoning model; 0 = none)")
	f.IntVar(&cfg.SpecDecodeTokens, "spec-decode-tokens", cfg.SpecDecodeTokens, "expose vLLM's speculative-decoding counters (two engines) for this many draft tokens per step (0 = none)")
	f.Float64Var(&cfg.SpecDecodeAcceptance, "spec-decode-acceptance", cfg.SpecDecodeAcceptance, "share of draft tokens accepted, 0 to 1, by a deterministic model")
	f.IntVar(&cfg.PrefixCacheBlocks, "prefix-cache-blocks", cfg.PrefixCacheBlocks, "capacity of the simulated prefix cache in 16-token blocks (LRU), reported as vLLM's prefix-cache counters and KV-cache usage (0 = off)")
	f.StringVar(&urlFile, "url-file", "", "once listening, write the server's URL to this file (atomically), for scripts")
	f.StringVar(&tok, "tokenizer", "o200k_base", "tokenizer for prompt counts and /tokenize: o200k_base, cl100k_base, p50k_base, r50k_base, or \"\" for the simulator's word tokenizer")
	return cmd
}

// simStartErr maps a sim.Start error to its exit code: listening failures
// (e.g. the port is in use) are failures, exit 1, unless the address itself
// is malformed; an invalid configuration is a usage error, exit 2.
func simStartErr(err error) error {
	var op *net.OpError
	var addr *net.AddrError
	if errors.As(err, &op) && !errors.As(err, &addr) {
		return failErr(err)
	}
	return usageErr(err)
}

// faultFlag is the repeatable --fault flag: each value is a sim.Fault.
type faultFlag struct{ faults *[]sim.Fault }

// String lists the faults given so far.
func (f faultFlag) String() string {
	if f.faults == nil {
		return ""
	}
	specs := make([]string, len(*f.faults))
	for i, x := range *f.faults {
		specs[i] = x.String()
	}
	return strings.Join(specs, " ") // a spec may hold a comma (,delay=)
}

// Set adds one fault.
func (f faultFlag) Set(v string) error {
	x, err := sim.ParseFault(v)
	if err != nil {
		return err
	}
	*f.faults = append(*f.faults, x)
	return nil
}

// Type names the flag's value in help.
func (faultFlag) Type() string { return "spec" }

// optDuration is a flag.Value that sets a duration pointer when given.
type optDuration struct{ p **time.Duration }

func (o optDuration) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return (**o.p).String()
}

func (o optDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*o.p = &d
	return nil
}

func (o optDuration) Type() string { return "duration" }
