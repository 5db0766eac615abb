package sim

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// DefaultAddr is the listen address of `vbench sim` when --addr is not given
// (vLLM's default port).
const DefaultAddr = "127.0.0.1:8000"

// Config describes a simulated server. Every duration is a time.Duration, so
// command-line flags map onto it with flag.DurationVar / time.ParseDuration.
type Config struct {
	// TTFT is the base time to first token, measured from request arrival.
	TTFT time.Duration
	// ITL is the inter-token latency: the schedule spacing of consecutive
	// tokens.
	ITL time.Duration
	// Jitter is the standard deviation of the deterministic, normally
	// distributed per-token jitter (0 = none). It never makes a token due
	// earlier than the previous one; see [Schedule].
	Jitter time.Duration
	// PrefillPerToken is added to the TTFT once per prompt token.
	PrefillPerToken time.Duration
	// CachedPrefillPerToken, when not nil, is the prefill time of a prompt
	// token found in the prefix cache (PrefixCacheBlocks) instead of
	// PrefillPerToken, so that a prompt that repeats an earlier one's
	// prefix (a conversation's history) answers sooner.
	CachedPrefillPerToken *time.Duration
	// PrefillPerMediaItem is added to the TTFT once per image of a chat
	// request (per frame of a video, per audio clip), besides the
	// PrefillPerToken of the tokens the media count as (see mediaTokens):
	// multimodal requests take longer the more media they carry.
	PrefillPerMediaItem time.Duration
	// DefaultOutputLen is the maximum number of generated tokens when a
	// request sets neither max_tokens nor max_completion_tokens.
	DefaultOutputLen int
	// Model is the served model name: the only id /v1/models lists (also its
	// root), and the only "model" a request may name.
	Model string
	// MaxModelLen is the context length: prompt tokens plus generated tokens
	// may not exceed it.
	MaxModelLen int
	// Seed seeds the jitter, the natural-EOS lengths and the generated text.
	Seed int64
	// Tokenizer counts prompt tokens and renders generated text; nil selects
	// the built-in [WordTokenizer].
	Tokenizer Tokenizer
	// FailEvery injects faults: every FailEvery-th model request (1-based
	// arrival count over /v1/completions, /v1/chat/completions and the
	// pooling endpoints) is answered with HTTP 500. 0 never fails.
	FailEvery int
	// Faults are injected into the model requests they hit (see Fault),
	// after DropEvery and FailEvery; the first that hits a request wins.
	Faults []Fault
	// Bare makes the server a bare OpenAI-compatible one, as many that are
	// not vLLM are: /v1/models lists only each model's id, object,
	// created and owned_by (no root, max_model_len or permission), and
	// there is no /tokenize, /detokenize or /metrics (404).
	Bare bool
	// MaxConns, when positive, holds at most that many client connections
	// open at once: one accepted beyond them is reset at once, as by a
	// server whose small listen backlog overflows under a burst (see
	// limitListener). 0 sets no limit.
	MaxConns int
	// CloseAfterStream makes the server close a connection after each
	// streamed response it ends normally, CloseAfterStreamDelay later,
	// while advertising keep-alive (as llama.cpp's server does): a request
	// the client writes to it meanwhile is never read. It counts how many
	// times each X-Request-Id arrives (see Stats.RepeatedRequests).
	CloseAfterStream bool
	// CloseAfterStreamDelay is how long after the end of a streamed
	// response CloseAfterStream closes its connection (0 = at once).
	CloseAfterStreamDelay time.Duration
	// DropEvery makes every DropEvery-th model request (the arrival
	// count of FailEvery) be read and then answered by closing its
	// connection, as a crashing server does; 0 never drops. Like
	// CloseAfterStream it counts repeated X-Request-Ids.
	DropEvery int
	// PlainTimers makes every stream sleep on its own Go timer in its
	// handler instead of being written by the process-wide stream loops and
	// waker. Set it when serving inside a testing/synctest bubble, whose fake
	// clock their OS sleeps do not follow (and whose channels they must not
	// touch); otherwise leave it false: an idle Go runtime fires timers up to
	// 1ms late, and a goroutine per stream costs more CPU under load.
	PlainTimers bool
	// SpecDecodeTokens, when positive, makes /metrics expose vLLM's
	// speculative-decoding counters from two engines (with their _created
	// series), as a server drafting this many tokens per step would; each
	// finished sequence counts its drafts by the deterministic model of
	// SpecAccepted. The stream is unchanged.
	SpecDecodeTokens int
	// SpecDecodeAcceptance is the share of draft tokens accepted, in
	// [0, 1] (see SpecAccepted).
	SpecDecodeAcceptance float64
	// LoRAModules are LoRA adapter names the server also serves: /v1/models
	// lists them after Model (Model as their parent, their name as their
	// root), and a request may name one as its model (vllm serve
	// --lora-modules).
	LoRAModules []string
	// PrefixCacheBlocks is the capacity, in blocks of PrefixBlockSize
	// tokens, of the simulated prefix cache: a least-recently-used cache
	// of the blocks of recent prompts, keyed by chained block hashes, that
	// /metrics reports as vLLM's vllm:prefix_cache_queries and
	// vllm:prefix_cache_hits counters, with vllm:kv_cache_usage_perc (the
	// blocks running requests hold over this capacity). 0 turns it off
	// (no such families). Timing is unchanged: a hit costs the same
	// prefill.
	PrefixCacheBlocks int
	// ReasoningTokens makes the simulator a reasoning model: the first
	// ReasoningTokens tokens of every chat, Responses and Messages answer
	// (at most all but the last) are reasoning, streamed as chat's
	// delta.reasoning_content, Responses' response.reasoning_text.delta
	// and Messages' thinking_delta, and counted in the usage's reasoning
	// tokens. Completions answers have none. 0 turns it off.
	ReasoningTokens int
	// NoProfiler makes /start_profile and /stop_profile answer 404, as
	// vLLM does when it runs without a profiler configured.
	NoProfiler bool
	// ITLPerRunning slows decoding down with load, as a batch's step time
	// grows with its size: a request's inter-token latency is ITL plus
	// ITLPerRunning for every request running when it was admitted, itself
	// included. 0 keeps the latency independent of load.
	ITLPerRunning time.Duration
	// MaxNumSeqs, when positive, is how many generation requests run at
	// once (vLLM's --max-num-seqs): the others wait in arrival order,
	// counted as waiting, and their schedule starts when they get a slot,
	// so the wait adds to their time to first token.
	MaxNumSeqs int
	// MaxNumBatchedTokens, when positive, is the most prompt tokens one
	// engine step prefills (vLLM's --max-num-batched-tokens with chunked
	// prefill): a prompt of P tokens takes ceil(P / MaxNumBatchedTokens)
	// steps, and every step after the first adds one ITL to its time to
	// first token.
	MaxNumBatchedTokens int
	// OnCacheReset, when set, is called with the route of every cache
	// reset the server answers (/reset_prefix_cache, /reset_mm_cache,
	// /reset_encoder_cache).
	OnCacheReset func(route string)
}

// DefaultConfig returns the configuration `vbench sim` starts from: TTFT 50ms,
// ITL 10ms, no jitter or prefill cost per token, 5ms per media item, 128
// output tokens by default, model
// "vbench-sim" with a 131072-token context, seed 0, the built-in tokenizer and
// no injected failures, and a prefix cache of DefaultPrefixCacheBlocks
// blocks.
func DefaultConfig() Config {
	return Config{
		TTFT:             50 * time.Millisecond,
		ITL:              10 * time.Millisecond,
		DefaultOutputLen: 128,
		// A vision encoder's few milliseconds per image.
		PrefillPerMediaItem: 5 * time.Millisecond,
		Model:               "vbench-sim",
		MaxModelLen:         131072,

		PrefixCacheBlocks: DefaultPrefixCacheBlocks,
	}
}

// validate reports every invalid field of c.
func (c Config) validate() error {
	var errs []error
	nonNegative := func(name string, d time.Duration) {
		if d < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, got %v", name, d))
		}
	}
	nonNegative("ttft", c.TTFT)
	nonNegative("itl", c.ITL)
	nonNegative("itl per running request", c.ITLPerRunning)
	if c.MaxNumSeqs < 0 || c.MaxNumBatchedTokens < 0 {
		errs = append(errs, fmt.Errorf("max num seqs and max num batched tokens must not be negative, got %d and %d", c.MaxNumSeqs, c.MaxNumBatchedTokens))
	}
	nonNegative("jitter", c.Jitter)
	nonNegative("prefill per token", c.PrefillPerToken)
	if c.CachedPrefillPerToken != nil {
		nonNegative("cached prefill per token", *c.CachedPrefillPerToken)
	}
	nonNegative("prefill per media item", c.PrefillPerMediaItem)
	if c.DefaultOutputLen < 1 {
		errs = append(errs, fmt.Errorf("default output length must be at least 1, got %d", c.DefaultOutputLen))
	}
	if c.Model == "" {
		errs = append(errs, errors.New("model name must not be empty"))
	}
	if c.MaxModelLen < 2 {
		errs = append(errs, fmt.Errorf("max model length must be at least 2, got %d", c.MaxModelLen))
	}
	if c.SpecDecodeTokens < 0 {
		errs = append(errs, fmt.Errorf("spec-decode tokens must not be negative, got %d", c.SpecDecodeTokens))
	}
	if !(c.SpecDecodeAcceptance >= 0 && c.SpecDecodeAcceptance <= 1) {
		errs = append(errs, fmt.Errorf("spec-decode acceptance must be in [0, 1], got %v", c.SpecDecodeAcceptance))
	}
	for i, name := range c.LoRAModules {
		if name == "" || name == c.Model || slices.Contains(c.LoRAModules[:i], name) {
			errs = append(errs, fmt.Errorf("LoRA module names must be non-empty and differ from each other and from the model, got %q", name))
		}
	}
	if c.PrefixCacheBlocks < 0 || c.PrefixCacheBlocks > 1<<30 {
		errs = append(errs, fmt.Errorf("prefix cache blocks must be in [0, 2^30], got %d", c.PrefixCacheBlocks))
	}
	if c.ReasoningTokens < 0 {
		errs = append(errs, fmt.Errorf("reasoning tokens must not be negative, got %d", c.ReasoningTokens))
	}
	if c.FailEvery < 0 {
		errs = append(errs, fmt.Errorf("fail-every must not be negative, got %d", c.FailEvery))
	}
	for _, f := range c.Faults {
		if _, err := ParseFault(f.String()); err != nil || (f.Every > 0) == (f.Rate > 0) {
			errs = append(errs, fmt.Errorf("fault %+v: give a kind and exactly one of every or rate", f))
		}
	}
	if c.MaxConns < 0 {
		errs = append(errs, fmt.Errorf("max-conns must not be negative, got %d", c.MaxConns))
	}
	if c.DropEvery < 0 {
		errs = append(errs, fmt.Errorf("drop-every must not be negative, got %d", c.DropEvery))
	}
	nonNegative("close-after-stream delay", c.CloseAfterStreamDelay)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("invalid simulator config: %w", err)
	}
	return nil
}
