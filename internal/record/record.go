// Package record defines the per-request record that every stage of a run
// shares: the dispatcher fills in the schedule times, the backend fills in
// the response times and token counts, and metrics and reports fold records
// into summaries. A record is data, never an error: a failed request is a
// record with Success false and its error text.
//
// All times are durations on the monotonic clock, relative to one run start.
package record

import (
	"encoding/json"
	"time"
)

// Record is everything vbench knows about one request.
type Record struct {
	// Index is the request's position in the run's request list.
	Index int `json:"index"`
	// RequestID is the x-request-id header value sent, or "" when none was sent.
	RequestID string `json:"request_id,omitempty"`
	// TraceID is the W3C trace id (32 lowercase hex digits) of the
	// traceparent header sent with the request (metrics.trace_context), so
	// the server's OpenTelemetry spans can be joined to the record; "" when
	// none was sent.
	TraceID string `json:"trace_id,omitempty"`

	// Intended is the scheduled send time (the arrival offset).
	Intended time.Duration `json:"intended_ns"`
	// Released is when the dispatcher released the request (vLLM's arrival
	// time); Released-Intended is the send lag.
	Released time.Duration `json:"released_ns"`
	// Start is vLLM's start_time: taken after the concurrency limit admitted
	// the request, before dialling or waiting for a connection when it had
	// to, else just before the HTTP request is written (see backend.Send).
	// Start-Released is the client queue time.
	Start time.Duration `json:"start_ns"`
	// Chunks holds the arrival time of every token-bearing SSE message, in
	// order. Chunks[0]-Start is the TTFT; consecutive differences are the ITLs.
	Chunks []time.Duration `json:"chunks_ns,omitempty"`
	// End is the time of the last token-bearing message (vLLM's latency end),
	// or the time the response was complete for non-streaming backends.
	End time.Duration `json:"end_ns"`

	// PromptLen is the prompt length in tokens: the server's usage count when
	// the response carried one, else the dataset's count.
	PromptLen int `json:"prompt_len"`
	// OutputTokens is usage.completion_tokens when the server reported it, else 0.
	OutputTokens int `json:"output_tokens"`
	// GeneratedText is the concatenated generated text.
	GeneratedText string `json:"generated_text,omitempty"`
	// FirstReasoning is the arrival time of the first message carrying
	// reasoning text (a reasoning model's thinking), 0 when none did;
	// ReasoningChunks counts those messages.
	FirstReasoning  time.Duration `json:"first_reasoning_ns,omitempty"`
	ReasoningChunks int           `json:"reasoning_chunks,omitempty"`
	// FirstAnswer is the arrival time of the first message carrying answer
	// text after reasoning, 0 when the stream had no reasoning or no
	// answer: with FirstReasoning it splits a reasoning model's wait.
	FirstAnswer time.Duration `json:"first_answer_ns,omitempty"`
	// InputAudioSeconds is the duration of the audio clip the request
	// uploaded (vLLM's input_audio_duration, whose sum over the successes
	// per second of the run is its rtfx); 0 without audio.
	InputAudioSeconds float64 `json:"input_audio_seconds,omitempty"`
	// ReasoningTokens is the server's count of reasoning tokens among the
	// output tokens, 0 when it sent none.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// InputSequences is the number of inputs a pooling request carried
	// (vLLM's num_input_sequences: a batch's length, a rerank request's
	// documents); 0 for a generation request, where it does not apply.
	InputSequences int `json:"input_sequences,omitempty"`

	// Success is true when at least one token-bearing message arrived.
	Success bool `json:"success"`
	// Error is the error text of a failed request ("" on success).
	Error string `json:"error,omitempty"`
	// Status is the HTTP status code, 0 if no response was received.
	Status int `json:"status,omitempty"`
	// ReadLag is the longest time one of the response's reads returned
	// after the kernel had received the data it returned (receive
	// timestamps, Linux plain-TCP connections); 0 when unknown. A client
	// that keeps up reads within microseconds.
	ReadLag time.Duration `json:"read_lag_ns,omitempty"`
	// NotSent marks a request that was released but never sent: the run
	// was cancelled while it waited for a concurrency slot. It is neither a
	// success nor a failure (vLLM's outputs hold only requests that ran).
	NotSent bool `json:"not_sent,omitempty"`
	// Conversation is the id of the conversation the request is a turn
	// of, and Turn its 0-based turn index ("" and 0 outside one).
	Conversation string `json:"conversation,omitempty"`
	Turn         int    `json:"turn,omitempty"`
	// FinishReason is the server's finish_reason ("stop": the model's stop
	// token or a stop string, "length": the token limit), "" when it sent
	// none.
	FinishReason string `json:"finish_reason,omitempty"`
	// StopReason is the server's stop_reason as sent (vLLM: the id of the
	// stop token that ended the output, or the stop string, as JSON), nil
	// when it sent null or nothing: with finish_reason "stop", the EOS
	// token.
	StopReason json.RawMessage `json:"stop_reason,omitempty"`
}

// EndedOnStopString reports whether the output ended on a stop string (the
// server's stop_reason is a string): its text is cut before the string,
// while the server counts the tokens that made it.
func (r *Record) EndedOnStopString() bool {
	return len(r.StopReason) > 0 && r.StopReason[0] == '"'
}

// EndedOnStopToken reports whether the output ended on a stop token (the
// model's EOS, or a stop token id): the server counts that token, which has
// no text.
func (r *Record) EndedOnStopToken() bool {
	return r.FinishReason == "stop" && !r.EndedOnStopString()
}

// TTFT is the time to first token in seconds (0 when no chunk arrived).
func (r *Record) TTFT() float64 {
	if len(r.Chunks) == 0 {
		return 0
	}
	return (r.Chunks[0] - r.Start).Seconds()
}

// Latency is the end-to-end latency in seconds: last token-bearing message
// minus start (0 when the request failed before any chunk).
func (r *Record) Latency() float64 {
	if r.End == 0 {
		return 0
	}
	return (r.End - r.Start).Seconds()
}

// ITLs returns the inter-token latencies in seconds: one per token-bearing
// message after the first, as vLLM computes them.
func (r *Record) ITLs() []float64 {
	if len(r.Chunks) < 2 {
		return nil
	}
	out := make([]float64, len(r.Chunks)-1)
	for i := 1; i < len(r.Chunks); i++ {
		out[i-1] = (r.Chunks[i] - r.Chunks[i-1]).Seconds()
	}
	return out
}

// ClientQueueTime is Start-Released in seconds: the time the request waited
// on the concurrency limit, and the client's own time before it began to
// dial, wait for a connection or write.
func (r *Record) ClientQueueTime() float64 { return (r.Start - r.Released).Seconds() }

// SendLag is Released-Intended: how late the dispatcher released the request.
func (r *Record) SendLag() time.Duration { return r.Released - r.Intended }
