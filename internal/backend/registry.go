package backend

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/py"
)

// Task is the kind of work a backend asks the server for (vLLM's task
// type of a request function).
type Task uint8

// The task types of vLLM's backends.
const (
	// TaskGeneration generates text: completions, chat, the audio API.
	TaskGeneration Task = iota + 1
	// TaskPooling returns embeddings or scores and generates nothing.
	TaskPooling
	// TaskTranscription turns audio into text.
	TaskTranscription
)

// String returns the task's name: generation, pooling or transcription.
func (t Task) String() string {
	switch t {
	case TaskGeneration:
		return "generation"
	case TaskPooling:
		return "pooling"
	case TaskTranscription:
		return "transcription"
	}
	return fmt.Sprintf("Task(%d)", uint8(t))
}

// Kind is one backend kind: a registry entry. It describes the backend
// as vLLM knows it and, when vbench implements it, carries the Codec that
// builds its requests and decodes its responses.
type Kind struct {
	// Name is the --backend value (target.backend).
	Name string
	// URLSuffix is what the API URL must end with (besides "profile").
	URLSuffix string
	// AltURLSuffix, when set, is another ending the URL may have
	// (the audio API's translations beside its transcriptions).
	AltURLSuffix string
	// APIName is the name used in vLLM's URL validation error.
	APIName string
	// Task is the kind of work the backend asks for.
	Task Task
	// OpenAICompatible reports that vLLM treats the backend as OpenAI
	// compatible (its OPENAI_COMPATIBLE_BACKENDS: sampling flags allowed,
	// ignore_eos forced for random data).
	OpenAICompatible bool
	// Stream reports that responses are Server-Sent Events: Codec.Decode
	// gets each message's data. Otherwise it gets the whole response body
	// once.
	Stream bool
	// Codec builds the payloads and decodes the responses; nil means vbench
	// does not implement the backend yet.
	Codec Codec
	// Multipart says the payload is a multipart form (the audio API's
	// upload), sent with a multipart Content-Type and the client's
	// boundary (PayloadOptions.Boundary) instead of application/json.
	Multipart bool
	// Headers are sent on every request of the kind (the Messages API's
	// anthropic-version), before the run's own headers, which win.
	Headers map[string]string
	// APIKeyHeader, when set, also carries the API key (bare) in this
	// header (the Messages API's x-api-key), besides Authorization.
	APIKeyHeader string
}

// Supported reports whether vbench implements the backend.
func (k Kind) Supported() bool { return k.Codec != nil }

// Codec is a backend kind's wire format. Its methods are called
// concurrently, so a Codec holds no per-request state.
type Codec interface {
	// Payload returns the JSON request body for r. It runs before the
	// run's clock starts (Client.Prepare), so it may allocate freely.
	Payload(r *dataset.Request, o *PayloadOptions) ([]byte, error)
	// Decode decodes one response message: the data of an SSE message
	// when the kind streams, else the whole body of a 200 response. It
	// appends the message's output text to text and returns the grown
	// buffer with what the metrics need; an error marks the response
	// invalid and fails the request. data is only valid during the call.
	// For a streaming kind Decode runs once per token event, on the
	// timing path: it must not allocate beyond the growth of text.
	Decode(data, text []byte) (Message, []byte, error)
}

// Message is what the metrics need from one response message.
type Message struct {
	// Output reports that the message carries output: a streamed message
	// with a non-empty choices array (its arrival time is a token time,
	// even when its text is empty), or a non-streaming body that holds the
	// result. A response without one fails, as in vLLM.
	Output bool
	// HasPromptTokens and HasOutputTokens report usage counts the server
	// sent (not null): the record's prompt length and output token count
	// are then the server's.
	HasPromptTokens, HasOutputTokens bool
	// PromptTokens and OutputTokens are those counts (usage.prompt_tokens
	// and usage.completion_tokens).
	PromptTokens, OutputTokens int
	// FinishReason is choices[0].finish_reason when it is a string ("stop",
	// "length", ...), else "".
	FinishReason string
	// StopReason is the JSON text of choices[0].stop_reason when it is not
	// null (vLLM: the stop token id, or the stop string that ended the
	// output), else "".
	StopReason string
	// Answer and Reasoning report that a streamed message carries answer
	// text, or reasoning text (chat's delta.reasoning_content or
	// delta.reasoning, a Responses reasoning delta, a Messages thinking
	// delta): the times of the first of each are reported apart.
	Answer, Reasoning bool
	// HasReasoningTokens and ReasoningTokens are the server's count of
	// reasoning tokens among the output tokens (usage's
	// completion_tokens_details.reasoning_tokens, or the Responses API's
	// output_tokens_details.reasoning_tokens), when it sent one.
	HasReasoningTokens bool
	ReasoningTokens    int
	// Chunk reports an OpenAI-style streamed chunk (completions, chat,
	// audio): Output is then a non-empty choices array, and vLLM's client
	// reads the usage only from a chunk without choices (see
	// Config.ExactCounting).
	Chunk bool
}

// PayloadOptions are the run-wide settings a payload uses.
type PayloadOptions struct {
	// Model is the payload's model field, unless the request names its own
	// (dataset.Request.Model: a LoRA module); see ModelFor.
	Model string
	// IgnoreEOS adds "ignore_eos": true (vLLM's common payload update).
	IgnoreEOS bool
	// Logprobs is the completions payload's logprobs (nil sends null).
	Logprobs *int
	// ExtraBody is shallow-merged into the payload last, overriding
	// earlier keys (vLLM's common payload update).
	ExtraBody map[string]any
	// Boundary is the multipart boundary of a Multipart kind's payloads.
	Boundary string
}

// ModelFor is the payload model of r: its own model name (a LoRA module
// vLLM's --lora-modules assigned it) when set, else Model.
func (o *PayloadOptions) ModelFor(r *dataset.Request) string {
	if r.Model != "" {
		return r.Model
	}
	return o.Model
}

// setCommon applies vLLM's common payload update (_update_payload_common)
// to p: "ignore_eos": true when asked, then the extra body merged with the
// request's own members (vLLM's _merge_overrides: the request's win), the
// run's keys sorted first, then the request's new keys sorted, replacing
// existing keys in place.
func (o *PayloadOptions) setCommon(p *py.Object, r *dataset.Request) {
	if o.IgnoreEOS {
		p.Set("ignore_eos", true)
	}
	keys := make([]string, 0, len(o.ExtraBody))
	for k := range o.ExtraBody {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var extra []string
	for k := range r.ExtraBody {
		if _, ok := o.ExtraBody[k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range append(keys, extra...) {
		v, ok := r.ExtraBody[k]
		if !ok {
			v = o.ExtraBody[k]
		}
		p.Set(k, v)
	}
}

// registry holds the backend kinds in registration order: vLLM's twelve
// (its --backend choices, in its order), vbench's own (the Responses and
// Messages APIs), then any registered later.
var registry = struct {
	mu    sync.RWMutex
	kinds []Kind
}{kinds: []Kind{
	{Name: "vllm", URLSuffix: "completions", APIName: "OpenAI Completions API", Task: TaskGeneration, OpenAICompatible: true, Stream: true},
	{Name: "openai", URLSuffix: "completions", APIName: "OpenAI Completions API", Task: TaskGeneration, OpenAICompatible: true, Stream: true},
	{Name: "openai-chat", URLSuffix: "chat/completions", APIName: "OpenAI Chat Completions API", Task: TaskGeneration, OpenAICompatible: true, Stream: true},
	{Name: "openai-audio", URLSuffix: "transcriptions", AltURLSuffix: "translations", APIName: "OpenAI Audio API", Task: TaskTranscription,
		Stream: true, Multipart: true},
	{Name: "openai-embeddings", URLSuffix: "embeddings", APIName: "OpenAI Embeddings API", Task: TaskPooling},
	{Name: "openai-embeddings-chat", URLSuffix: "embeddings", APIName: "OpenAI Embeddings API", Task: TaskPooling},
	{Name: "openai-embeddings-clip", URLSuffix: "embeddings", APIName: "OpenAI Embeddings API", Task: TaskPooling},
	{Name: "openai-embeddings-vlm2vec", URLSuffix: "embeddings", APIName: "OpenAI Embeddings API", Task: TaskPooling},
	{Name: "infinity-embeddings", URLSuffix: "embeddings", APIName: "Infinity Embeddings API", Task: TaskPooling},
	{Name: "infinity-embeddings-clip", URLSuffix: "embeddings", APIName: "Infinity Embeddings API", Task: TaskPooling},
	{Name: "vllm-pooling", URLSuffix: "pooling", APIName: "vLLM Pooling API", Task: TaskPooling},
	{Name: "vllm-rerank", URLSuffix: "rerank", APIName: "vLLM score API", Task: TaskPooling},
	// vbench's own kinds, which vLLM's client does not have.
	{Name: "openai-responses", URLSuffix: "responses", APIName: "OpenAI Responses API", Task: TaskGeneration, Stream: true},
	{Name: "anthropic-messages", URLSuffix: "messages", APIName: "Anthropic Messages API", Task: TaskGeneration, Stream: true,
		Headers: map[string]string{"anthropic-version": AnthropicVersion}, APIKeyHeader: "x-api-key"},
}}

// implement attaches the Codec of one of vLLM's kinds; the file of each
// implemented family calls it from init.
func implement(name string, c Codec) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	i := slices.IndexFunc(registry.kinds, func(k Kind) bool { return k.Name == name })
	if i < 0 || registry.kinds[i].Codec != nil || c == nil {
		panic(fmt.Sprintf("internal error: backend %q implemented twice, with no codec, or not registered", name))
	}
	registry.kinds[i].Codec = c
}

// Register adds a backend kind after the existing ones. The name must be
// new; URLSuffix, APIName and Task must be set. A kind without a Codec is
// listed but not supported.
func Register(k Kind) error {
	switch {
	case k.Name == "":
		return errors.New("register backend: empty name")
	case k.URLSuffix == "" || k.APIName == "":
		return fmt.Errorf("register backend %q: URLSuffix and APIName must be set", k.Name)
	case k.Task < TaskGeneration || k.Task > TaskTranscription:
		return fmt.Errorf("register backend %q: invalid task %v", k.Name, k.Task)
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if slices.ContainsFunc(registry.kinds, func(o Kind) bool { return o.Name == k.Name }) {
		return fmt.Errorf("register backend %q: already registered", k.Name)
	}
	registry.kinds = append(registry.kinds, k)
	return nil
}

// Unregister removes the kind named name, reporting whether there was one.
// It is meant for tests that register a kind of their own.
func Unregister(name string) bool {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	n := len(registry.kinds)
	registry.kinds = slices.DeleteFunc(registry.kinds, func(k Kind) bool { return k.Name == name })
	return len(registry.kinds) < n
}

// Kinds returns every registered kind, in registration order (vLLM's
// --backend order first).
func Kinds() []Kind {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	return slices.Clone(registry.kinds)
}

// Lookup returns the kind with the given name.
func Lookup(name string) (Kind, bool) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	for _, k := range registry.kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Names returns the names of every registered kind, in registration order.
func Names() []string { return names(func(Kind) bool { return true }) }

// SupportedNames returns the names of the kinds vbench implements, in
// registration order.
func SupportedNames() []string { return names(Kind.Supported) }

// OpenAICompatible reports whether vLLM treats the backend as OpenAI
// compatible (sampling flags allowed, ignore_eos forced for random data).
func OpenAICompatible(name string) bool {
	k, ok := Lookup(name)
	return ok && k.OpenAICompatible
}

// names returns the names of the kinds keep accepts.
func names(keep func(Kind) bool) []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	var out []string
	for _, k := range registry.kinds {
		if keep(k) {
			out = append(out, k.Name)
		}
	}
	return out
}

// unknownError is the error for a name no kind has.
func unknownError(name string) error {
	return fmt.Errorf("unknown backend %q: want one of %s", name, strings.Join(Names(), ", "))
}

// UnsupportedMessage is the text for a kind vbench does not implement yet,
// naming the ones it does: `backend "x" is not supported by vbench yet
// (supported: vllm, openai, openai-chat)`.
func UnsupportedMessage(name string) string {
	return fmt.Sprintf("backend %q is not supported by vbench yet (supported: %s)", name, strings.Join(SupportedNames(), ", "))
}

// AcceptsURL reports whether vLLM accepts url for the kind: it must end
// with the kind's URL suffix or "profile".
func (k Kind) AcceptsURL(url string) bool {
	return strings.HasSuffix(url, k.URLSuffix) || k.AltURLSuffix != "" && strings.HasSuffix(url, k.AltURLSuffix) ||
		strings.HasSuffix(url, "profile")
}

// ExampleEndpoint is an endpoint path the kind's URL may end with, for
// error messages: the server's usual path.
func (k Kind) ExampleEndpoint() string {
	switch k.URLSuffix {
	case "transcriptions":
		return "/v1/audio/transcriptions"
	case "pooling":
		return "/pooling"
	case "rerank":
		return "/rerank"
	}
	return "/v1/" + k.URLSuffix
}

// Suffixes lists the URL endings of the kind as vLLM's error names them:
// 'transcriptions', 'translations'.
func (k Kind) Suffixes() string {
	if k.AltURLSuffix != "" {
		return fmt.Sprintf("'%s', '%s'", k.URLSuffix, k.AltURLSuffix)
	}
	return fmt.Sprintf("'%s'", k.URLSuffix)
}
