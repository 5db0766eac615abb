// Package sim is a deterministic, OpenAI-compatible simulated LLM server that
// frames its responses exactly like vLLM's OpenAI server.
//
// It serves GET /v1/models, POST /v1/completions, POST /v1/chat/completions,
// the Responses API's POST /v1/responses and the Messages API's POST
// /v1/messages (Server-Sent Events and plain JSON; each API's own event
// shapes, with reasoning deltas when [Config.ReasoningTokens] is set), the
// pooling endpoints POST
// /v1/embeddings, /pooling and /rerank (also /v1/rerank and /v2/rerank;
// deterministic unit vectors, encoding_format float, base64, bytes and
// bytes_only, answered after the prefill time of all their tokens), POST
// /tokenize, POST /detokenize, GET /health and GET /metrics (Prometheus
// text, vLLM metric names).
//
// # Latency model
//
// Every generation request is planned when it arrives, at the monotonic time
// t0: the kernel's receive time of its last byte for a server made by [Start]
// on Linux (see arrival.go), else the time its handler started. Its prompt is
// tokenized, its output length is fixed (max tokens, or a seeded "natural
// EOS" length, see [NaturalLength]), and token k of n is due at the offset
// d_k given by [Schedule]. At each absolute due time t0+d_k the SSE event is
// written and flushed, and its lateness recorded: lateness = time after the
// flush − due time. Because every due time is anchored at t0, a late write
// never delays the following ones, and a writer that has fallen behind sends
// the events that are already due in one write instead of queueing them. For
// chat the role-only delta goes out in the same write as token 0; the usage
// chunk and [DONE] in the same write as the last token.
//
// Streams are written by a few stream loops (one per processor, see loop.go)
// that pop due streams from a heap, so a busy simulator spends its CPU on
// writes rather than on waking one goroutine per event; they finish each
// sleep with a precise OS sleep while few streams run, because an idle Go
// runtime fires timers up to a millisecond late. Non-streaming responses
// sleep on the process-wide waker (waker.go), and with [Config.PlainTimers]
// (for testing/synctest bubbles) every stream sleeps on its own Go timer in
// its handler. [Server.Stats] and the vbench_sim_write_lateness_seconds
// metric report the lateness distribution, so a client calibrated against
// the simulator can tell its own timing error from the simulator's.
//
// # Determinism
//
// Output lengths, jitter and generated text are pure functions of
// [Config.Seed] and the prompt's token ids (see [Schedule] and
// [NaturalLength]); request arrival order and wall-clock time only affect the
// response ids, the "created" stamps and the measured metrics.
//
// # Differences from vLLM
//
// There is no chat template: a chat prompt is the text of its messages joined
// by newlines, and its token count is that text's token count. The request
// fields n, logprobs, echo, stop strings, tools and
// stream_options.continuous_usage_stats are accepted and ignored. Chunks carry
// the keys shown in vLLM's documented stream format (no prompt_token_ids or
// token_ids keys). Error bodies use vLLM's flat form
// {"object":"error","message":...,"type":...,"param":null,"code":N}; an unknown
// path gets Go's plain-text 404.
package sim
