package backend

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/py"
)

// The anthropic-messages backend speaks the Anthropic Messages API
// (/v1/messages), which vLLM serves too: a kind vLLM's --backend does not
// list, after vLLM's twelve in the registry.
func init() {
	implement("anthropic-messages", messages{})
}

// AnthropicVersion is the anthropic-version header the anthropic-messages
// backend sends.
const AnthropicVersion = "2023-06-01"

// messages is the Messages API wire format: a streamed request whose
// events carry their type in the JSON (content_block_delta, ...).
type messages struct{}

// Payload builds a Messages body: model, max_tokens, messages (one user
// message with the prompt, or the chat messages), stream, then the common
// update.
func (messages) Payload(r *dataset.Request, o *PayloadOptions) ([]byte, error) {
	if r.PromptTokens != nil {
		return nil, errTokenPrompt
	}
	if len(r.Prompts) > 0 {
		return nil, errors.New("the request is a batch of prompts (dataset random with batch_size > 1), which the Messages API cannot send")
	}
	if err := noMedia(r, "anthropic-messages"); err != nil {
		return nil, err
	}
	var p py.Object
	p.Set("model", o.ModelFor(r))
	p.Set("max_tokens", r.OutputLen)
	var msgs []map[string]any
	var system string
	for _, m := range r.Messages {
		if m.Role == dataset.RoleSystem { // the Messages API takes the system prompt apart
			system += messageText(m)
			continue
		}
		msgs = append(msgs, map[string]any{"role": string(m.Role), "content": messageText(m)})
	}
	if len(r.Messages) == 0 {
		msgs = []map[string]any{{"role": "user", "content": r.Prompt}}
	}
	if system != "" {
		p.Set("system", system)
	}
	p.Set("messages", msgs)
	p.Set("stream", true)
	o.setCommon(&p, r)
	return p.MarshalJSON()
}

// Decode decodes one streamed Messages event: a content_block_delta is a
// token event (text_delta answer text, thinking_delta reasoning,
// input_json_delta a tool call's arguments); message_start carries the
// prompt's usage and message_delta the output's and the stop reason; an
// error event fails the request with the server's message.
func (messages) Decode(data, text []byte) (Message, []byte, error) {
	var m Message
	var ev msgEvent
	if !scanMsgEvent(data, &ev) {
		if err := decodeMsgEventJSON(data, &ev); err != nil {
			return m, text, err
		}
	}
	switch ev.typ {
	case "content_block_delta":
		m.Output = true
		switch {
		case ev.text.raw != nil || ev.textStr != "":
			n := len(text)
			if ev.text.raw == nil {
				text = append(text, ev.textStr...)
			} else if ev.text.plain {
				text = append(text, ev.text.raw...)
			} else {
				text = appendUnquoted(text, ev.text.raw)
			}
			m.Answer = len(text) > n
		case ev.thinking:
			m.Reasoning = true
		}
	case "message_start", "message_delta":
		u := &ev.usage
		m.HasPromptTokens, m.PromptTokens = u.hasIn, u.in
		if ev.typ == "message_delta" {
			m.HasOutputTokens, m.OutputTokens = u.hasOut, u.out
		}
		switch ev.stop {
		case "":
		case "end_turn", "stop_sequence":
			m.FinishReason = "stop"
		case "max_tokens":
			m.FinishReason = "length"
		default:
			m.FinishReason = ev.stop
		}
	case "error":
		return m, text, fmt.Errorf("the server sent an error event: %s", ev.message)
	}
	return m, text, nil
}

// msgEvent is what Decode needs of a Messages event.
type msgEvent struct {
	typ      string
	text     rawString  // delta.text (scanned)
	textStr  string     // delta.text (decoded by encoding/json)
	thinking bool       // delta.thinking is a non-empty string
	stop     string     // delta.stop_reason
	usage    tokenUsage // the event's usage
	msgUsage tokenUsage // message.usage (message_start's)
	message  string     // an error's message
}

// mergeUsage sets the counts u has into dst.
func mergeUsage(dst *tokenUsage, u tokenUsage) {
	if u.hasIn {
		dst.hasIn, dst.in = true, u.in
	}
	if u.hasOut {
		dst.hasOut, dst.out = true, u.out
	}
}

// msgTypes are the event types Decode acts on.
var msgTypes = []string{"content_block_delta", "message_start", "message_delta", "error"}

// scanMsgEvent scans a Messages event without allocating (but for an
// unknown stop reason), as decodeMsgEventJSON decodes it; false leaves
// the event to decodeMsgEventJSON.
func scanMsgEvent(data []byte, ev *msgEvent) bool {
	*ev = msgEvent{}
	s := chunkScanner{b: data}
	if !s.eat('{') {
		return false
	}
	var seenType, seenDelta, seenMessage, seenUsage bool
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
			ev.typ = knownType(raw, msgTypes)
			return ev.typ != "error"
		case string(k) == "delta":
			if seenDelta {
				return false
			}
			seenDelta = true
			return s.msgDelta(ev)
		case string(k) == "message":
			if seenMessage {
				return false
			}
			seenMessage = true
			if s.lit("null") {
				return true
			}
			if !s.eat('{') {
				return false
			}
			seenInner := false
			return s.object(func(k []byte) bool {
				switch {
				case string(k) == "usage":
					if seenInner {
						return false
					}
					seenInner = true
					return s.msgUsage(&ev.msgUsage)
				case foldEq(k, "usage"):
					return false
				}
				return s.skip(0)
			})
		case string(k) == "usage":
			if seenUsage {
				return false
			}
			seenUsage = true
			return s.msgUsage(&ev.usage)
		case foldEq(k, "type"), foldEq(k, "delta"), foldEq(k, "message"), foldEq(k, "usage"):
			return false
		}
		return s.skip(0)
	})
	s.ws()
	if !ok || s.i != len(s.b) {
		return false
	}
	u := ev.msgUsage // as encoding/json fills them: message's, then the event's
	mergeUsage(&u, ev.usage)
	ev.usage = u
	return true
}

// msgDelta scans an event's delta: text, thinking and stop_reason.
func (s *chunkScanner) msgDelta(ev *msgEvent) bool {
	if s.lit("null") {
		return true
	}
	if !s.eat('{') {
		return false
	}
	var seenText, seenThinking, seenStop bool
	return s.object(func(k []byte) bool {
		switch {
		case string(k) == "text":
			if seenText {
				return false
			}
			seenText = true
			if s.lit("null") {
				return true
			}
			if s.peek() != '"' {
				return false
			}
			raw, plain, ok := s.str()
			ev.text = rawString{raw, plain, len(raw)}
			return ok
		case string(k) == "thinking":
			if seenThinking {
				return false
			}
			seenThinking = true
			nonEmpty, ok := s.optNonEmpty()
			ev.thinking = nonEmpty
			return ok
		case string(k) == "stop_reason":
			if seenStop {
				return false
			}
			seenStop = true
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
			ev.stop = finishReason(raw)
			return true
		case foldEq(k, "text"), foldEq(k, "thinking"), foldEq(k, "stop_reason"):
			return false
		}
		return s.skip(0)
	})
}

// msgUsage scans a Messages usage: input_tokens and output_tokens.
func (s *chunkScanner) msgUsage(u *tokenUsage) bool {
	if s.lit("null") {
		return true
	}
	if !s.eat('{') {
		return false
	}
	var seenIn, seenOut bool
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
		case foldEq(k, "input_tokens"), foldEq(k, "output_tokens"):
			return false
		}
		return s.skip(0)
	})
}

// msgUsageJSON is a Messages usage as encoding/json decodes it.
type msgUsageJSON struct {
	InputTokens  *int `json:"input_tokens"`
	OutputTokens *int `json:"output_tokens"`
}

// msgEventJSON is a Messages event as encoding/json decodes it: the
// reference for scanMsgEvent.
type msgEventJSON struct {
	Type  *string `json:"type"`
	Delta *struct {
		Text       *string `json:"text"`
		Thinking   *string `json:"thinking"`
		StopReason *string `json:"stop_reason"`
	} `json:"delta"`
	Message *struct {
		Usage *msgUsageJSON `json:"usage"`
	} `json:"message"`
	Usage *msgUsageJSON   `json:"usage"`
	Error json.RawMessage `json:"error"` // {"type": ..., "message": ...} on an error event
}

// decodeMsgEventJSON decodes a Messages event with encoding/json.
func decodeMsgEventJSON(data []byte, ev *msgEvent) error {
	*ev = msgEvent{}
	var j msgEventJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	if j.Type != nil {
		ev.typ = knownType([]byte(*j.Type), msgTypes)
	}
	if d := j.Delta; d != nil {
		if d.Text != nil {
			ev.textStr = *d.Text
		}
		ev.thinking = d.Thinking != nil && *d.Thinking != ""
		if d.StopReason != nil {
			ev.stop = finishReason([]byte(*d.StopReason))
		}
	}
	use := func(u *msgUsageJSON) {
		if u == nil {
			return
		}
		if u.InputTokens != nil {
			ev.usage.hasIn, ev.usage.in = true, *u.InputTokens
		}
		if u.OutputTokens != nil {
			ev.usage.hasOut, ev.usage.out = true, *u.OutputTokens
		}
	}
	if j.Message != nil {
		use(j.Message.Usage)
	}
	use(j.Usage)
	ev.message = errorMessage(j.Error)
	return nil
}
