package backend

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/py"
)

// The openai-responses backend speaks the OpenAI Responses API
// (/v1/responses), which vLLM serves and vLLM's client does not (its Rust
// client has an openai_responses module): a kind vLLM's --backend does not
// list, after vLLM's twelve in the registry.
func init() {
	implement("openai-responses", responses{})
}

// responses is the Responses API wire format: a streamed request whose
// events carry their type in the JSON ("response.output_text.delta", ...).
type responses struct{}

// Payload builds a Responses body: model, input (the prompt, or the chat
// messages as input messages), max_output_tokens, stream, then the common
// update.
func (responses) Payload(r *dataset.Request, o *PayloadOptions) ([]byte, error) {
	if r.PromptTokens != nil {
		return nil, errTokenPrompt
	}
	if len(r.Prompts) > 0 {
		return nil, errors.New("the request is a batch of prompts (dataset random with batch_size > 1), which the Responses API cannot send")
	}
	if err := noMedia(r, "openai-responses"); err != nil {
		return nil, err
	}
	var p py.Object
	p.Set("model", o.ModelFor(r))
	if len(r.Messages) > 0 {
		msgs := make([]map[string]any, len(r.Messages))
		for i, m := range r.Messages {
			msgs[i] = map[string]any{"role": string(m.Role), "content": messageText(m)}
		}
		p.Set("input", msgs)
	} else {
		p.Set("input", r.Prompt)
	}
	p.Set("max_output_tokens", r.OutputLen)
	p.Set("stream", true)
	o.setCommon(&p, r)
	return p.MarshalJSON()
}

// Decode decodes one streamed Responses event. A text delta
// (response.output_text.delta, response.refusal.delta) or a reasoning
// delta (response.reasoning_text.delta,
// response.reasoning_summary_text.delta) is a token event; the final
// event (response.completed or response.incomplete) carries the usage and
// how the response ended; response.failed and error events fail the
// request with the server's message.
func (responses) Decode(data, text []byte) (Message, []byte, error) {
	var m Message
	var ev respEvent
	if !scanRespEvent(data, &ev) {
		if err := decodeRespEventJSON(data, &ev); err != nil {
			return m, text, err
		}
	}
	switch ev.typ {
	case "response.output_text.delta", "response.refusal.delta":
		m.Output = true
		n := len(text)
		text = ev.appendDelta(text)
		m.Answer = len(text) > n
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		m.Output = true
		m.Reasoning = ev.delta.n > 0
	case "response.completed", "response.incomplete":
		u := &ev.usage
		m.HasPromptTokens, m.PromptTokens = u.hasIn, u.in
		m.HasOutputTokens, m.OutputTokens = u.hasOut, u.out
		m.HasReasoningTokens, m.ReasoningTokens = u.hasReasoning, u.reasoning
		m.FinishReason = "stop"
		if ev.typ == "response.incomplete" {
			m.FinishReason = "length"
			if ev.reason != "" && ev.reason != "max_output_tokens" {
				m.FinishReason = ev.reason
			}
		}
	case "response.failed", "error":
		return m, text, fmt.Errorf("the server sent %s: %s", ev.typ, ev.message)
	}
	return m, text, nil
}

// respEvent is what Decode needs of a Responses event.
type respEvent struct {
	typ       string // the known event types are constants, so no allocation
	delta     rawString
	deltaText string // the delta decoded by encoding/json (delta.raw is nil then)
	usage     tokenUsage
	reason    string // incomplete_details.reason
	message   string // an error's message (only on failures)
}

// rawString is a scanned JSON string's raw bytes between the quotes.
type rawString struct {
	raw   []byte
	plain bool
	n     int // len(raw): > 0 for a non-empty string
}

// appendDelta appends the delta's value to text.
func (e *respEvent) appendDelta(text []byte) []byte {
	if e.delta.raw == nil {
		return append(text, e.deltaText...)
	}
	if e.delta.plain {
		return append(text, e.delta.raw...)
	}
	return appendUnquoted(text, e.delta.raw)
}

// tokenUsage are the usage counts of a final event.
type tokenUsage struct {
	hasIn, hasOut, hasReasoning bool
	in, out, reasoning          int
}

// respTypes are the event types Decode acts on, so that a scanned type
// is matched without allocating.
var respTypes = []string{"response.output_text.delta", "response.refusal.delta", "response.reasoning_text.delta",
	"response.reasoning_summary_text.delta", "response.completed", "response.incomplete", "response.failed", "error"}

// knownType returns the constant among names equal to raw, or "" (an
// event Decode ignores).
func knownType(raw []byte, names []string) string {
	for _, t := range names {
		if string(raw) == t {
			return t
		}
	}
	return ""
}

// scanRespEvent scans a Responses event without allocating, the way
// decodeRespEventJSON decodes it; false means it leaves the event to
// decodeRespEventJSON (an escaped or repeated key, a type mismatch, a
// failure event, or invalid JSON).
func scanRespEvent(data []byte, ev *respEvent) bool {
	*ev = respEvent{}
	s := chunkScanner{b: data}
	if !s.eat('{') {
		return false
	}
	var seenType, seenDelta, seenResp bool
	ok := s.object(func(k []byte) bool {
		switch {
		case string(k) == "type":
			if seenType || s.peek() != '"' {
				return false
			}
			seenType = true
			raw, plain, ok := s.str()
			if !ok || !plain {
				return false
			}
			ev.typ = knownType(raw, respTypes)
			return ev.typ != "response.failed" && ev.typ != "error"
		case string(k) == "delta":
			if seenDelta {
				return false
			}
			seenDelta = true
			if s.peek() != '"' {
				return s.skip(0) // not a text delta (a function call's arguments are strings too)
			}
			raw, plain, ok := s.str()
			ev.delta = rawString{raw, plain, len(raw)}
			return ok
		case string(k) == "response":
			if seenResp {
				return false
			}
			seenResp = true
			return s.respObject(ev)
		case foldEq(k, "type"), foldEq(k, "delta"), foldEq(k, "response"):
			return false
		}
		return s.skip(0)
	})
	s.ws()
	return ok && s.i == len(s.b)
}

// respObject scans a final event's response: its usage and
// incomplete_details.reason.
func (s *chunkScanner) respObject(ev *respEvent) bool {
	if s.lit("null") {
		return true
	}
	if !s.eat('{') {
		return false
	}
	var seenUsage, seenDetails bool
	return s.object(func(k []byte) bool {
		switch {
		case string(k) == "usage":
			if seenUsage {
				return false
			}
			seenUsage = true
			return s.respUsage(&ev.usage)
		case string(k) == "incomplete_details":
			if seenDetails {
				return false
			}
			seenDetails = true
			if s.lit("null") {
				return true
			}
			if !s.eat('{') {
				return false
			}
			seenReason := false
			return s.object(func(k []byte) bool {
				switch {
				case string(k) == "reason":
					if seenReason {
						return false
					}
					seenReason = true
					if s.lit("null") {
						return true
					}
					if s.peek() != '"' {
						return false
					}
					raw, plain, ok := s.str()
					if !ok || !plain {
						return false
					}
					ev.reason = finishReason(raw)
					return true
				case foldEq(k, "reason"):
					return false
				}
				return s.skip(0)
			})
		case foldEq(k, "usage"), foldEq(k, "incomplete_details"):
			return false
		}
		return s.skip(0)
	})
}

// respUsage scans a Responses usage: input_tokens, output_tokens and
// output_tokens_details.reasoning_tokens, each an integer or null.
func (s *chunkScanner) respUsage(u *tokenUsage) bool {
	if s.lit("null") {
		return true
	}
	if !s.eat('{') {
		return false
	}
	var seenIn, seenOut, seenDetails bool
	return s.object(func(k []byte) bool {
		switch {
		case string(k) == "input_tokens":
			if seenIn {
				return false
			}
			seenIn = true
			return s.optInt(&u.hasIn, &u.in)
		case string(k) == "output_tokens":
			if seenOut {
				return false
			}
			seenOut = true
			return s.optInt(&u.hasOut, &u.out)
		case string(k) == "output_tokens_details":
			if seenDetails {
				return false
			}
			seenDetails = true
			var f Message
			if !s.reasoningTokens("reasoning_tokens", &f) {
				return false
			}
			u.hasReasoning, u.reasoning = f.HasReasoningTokens, f.ReasoningTokens
			return true
		case foldEq(k, "input_tokens"), foldEq(k, "output_tokens"), foldEq(k, "output_tokens_details"):
			return false
		}
		return s.skip(0)
	})
}

// respEventJSON is a Responses event as encoding/json decodes it: the
// reference for scanRespEvent.
type respEventJSON struct {
	Type     *string         `json:"type"`
	Delta    json.RawMessage `json:"delta"`
	Message  json.RawMessage `json:"message"` // a string on an error event
	Response *struct {
		Usage *struct {
			InputTokens         *int `json:"input_tokens"`
			OutputTokens        *int `json:"output_tokens"`
			OutputTokensDetails *struct {
				ReasoningTokens *int `json:"reasoning_tokens"`
			} `json:"output_tokens_details"`
		} `json:"usage"`
		IncompleteDetails *struct {
			Reason *string `json:"reason"`
		} `json:"incomplete_details"`
		Error json.RawMessage `json:"error"` // {"message": ...} on a failure
	} `json:"response"`
}

// decodeRespEventJSON decodes a Responses event with encoding/json.
func decodeRespEventJSON(data []byte, ev *respEvent) error {
	*ev = respEvent{}
	var j respEventJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	if j.Type != nil {
		ev.typ = knownType([]byte(*j.Type), respTypes)
	}
	if len(j.Delta) > 0 && j.Delta[0] == '"' {
		var d string // not &ev.deltaText: ev would escape, and Decode allocate
		if err := json.Unmarshal(j.Delta, &d); err != nil {
			return err
		}
		ev.deltaText, ev.delta.n = d, len(d)
	}
	ev.message = errorMessage(j.Message)
	if r := j.Response; r != nil {
		if u := r.Usage; u != nil {
			if u.InputTokens != nil {
				ev.usage.hasIn, ev.usage.in = true, *u.InputTokens
			}
			if u.OutputTokens != nil {
				ev.usage.hasOut, ev.usage.out = true, *u.OutputTokens
			}
			if d := u.OutputTokensDetails; d != nil && d.ReasoningTokens != nil {
				ev.usage.hasReasoning, ev.usage.reasoning = true, *d.ReasoningTokens
			}
		}
		if d := r.IncompleteDetails; d != nil && d.Reason != nil {
			ev.reason = finishReason([]byte(*d.Reason))
		}
		if ev.message == "" {
			ev.message = errorMessage(r.Error)
		}
	}
	return nil
}

// errorMessage is the text of a server's error value: a string, or an
// object's "type" and "message"; "" for anything else. It is read only
// for failures, so it may allocate.
func errorMessage(raw json.RawMessage) string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text
	}
	var obj struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	if obj.Type != "" {
		return obj.Type + ": " + obj.Message
	}
	return obj.Message
}
