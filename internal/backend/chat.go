package backend

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/py"
)

// The openai-chat backend speaks the OpenAI Chat Completions API.
func init() {
	implement("openai-chat", chat{})
}

// chat is the Chat Completions API wire format: a streamed request whose
// chunks carry choices[0].delta.content.
type chat struct{}

// Payload builds vLLM's chat body, keys in vLLM's order: one user message
// whose content is the prompt as a text part.
func (chat) Payload(r *dataset.Request, o *PayloadOptions) ([]byte, error) {
	if r.PromptTokens != nil {
		return nil, errTokenPrompt
	}
	if r.Audio != nil {
		return nil, errAudioClip
	}
	var p py.Object
	p.Set("model", o.ModelFor(r))
	if len(r.Messages) > 0 {
		all := r.Messages
		if r.Conversation != nil {
			// A conversation's turn carries its history first.
			all = append(r.Conversation.History(), r.Messages...)
		}
		msgs, err := chatMessages(all)
		if err != nil {
			return nil, err
		}
		p.Set("messages", msgs)
	} else {
		p.Set("messages", []chatMessage{{Role: "user", Content: []contentPart{{Type: "text", Text: r.Prompt}}}})
	}
	p.Set("max_completion_tokens", r.OutputLen)
	p.Set("stream", true)
	p.Set("stream_options", map[string]any{"include_usage": true})
	o.setCommon(&p, r)
	return p.MarshalJSON()
}

// sendsTools marks chat as a toolSender.
func (chat) sendsTools() {}

// toolSender is implemented by the codecs whose API takes a request's
// "tools" (and tool_choice) as vLLM's BFCL dataset sends them.
type toolSender interface{ sendsTools() }

// Decode decodes one streamed chat chunk.
func (chat) Decode(data, text []byte) (Message, []byte, error) {
	var m Message
	text, err := decodeChunk(data, true, text, &m)
	m.Chunk = true
	return m, text, err
}

// chatMessage and contentPart give chat payloads vLLM's key order.
type chatMessage struct {
	Role    string        `json:"role"`
	Content []contentPart `json:"content"`
}

type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// chatMessages renders a request's chat messages as vLLM's chat request
// function sends them: a message with parts has a content array (text
// {"type": "text", "text": ...}, or text first in a message vLLM's
// multimodal chat transformation made; images {"type": "image_url",
// "image_url": {"url": ...}}, videos likewise as video_url, audio as
// audio_url), any other a content string.
func chatMessages(msgs []dataset.Message) ([]*py.Object, error) {
	out := make([]*py.Object, len(msgs))
	for i, m := range msgs {
		o := py.NewObject()
		o.Set("role", string(m.Role))
		if m.Parts == nil {
			o.Set("content", m.Content)
			out[i] = o
			continue
		}
		parts := make([]*py.Object, len(m.Parts))
		for j, part := range m.Parts {
			q := py.NewObject()
			switch part.Type {
			case dataset.PartText:
				if m.Transformed {
					q.Set("text", part.Text)
					q.Set("type", "text")
				} else {
					q.Set("type", "text")
					q.Set("text", part.Text)
				}
			case dataset.PartAudio:
				// vLLM's audio datasets send a clip inline as input_audio.
				if data, ok := strings.CutPrefix(part.URL, "data:audio/wav;base64,"); ok {
					in := py.NewObject()
					in.Set("data", data)
					in.Set("format", "wav")
					q.Set("type", "input_audio")
					q.Set("input_audio", in)
					break
				}
				url := py.NewObject()
				url.Set("url", part.URL)
				q.Set("type", "audio_url")
				q.Set("audio_url", url)
			case dataset.PartImage, dataset.PartVideo:
				key := string(part.Type) + "_url"
				url := py.NewObject()
				url.Set("url", part.URL)
				q.Set("type", key)
				q.Set(key, url)
			default:
				return nil, fmt.Errorf("message %d part %d: unknown content part type %q", i, j, part.Type)
			}
			parts[j] = q
		}
		o.Set("content", parts)
		out[i] = o
	}
	return out, nil
}

// errTokenPrompt refuses a prompt of token ids, which the chat API cannot
// take (vLLM refuses token-id datasets with a chat backend too).
var errTokenPrompt = errors.New("the prompt is a list of token ids (a trace dataset's), which only a completions backend (vllm or openai) can send")

// messageText is a message's text: its content, or its text parts joined
// (the caller has refused media parts).
func messageText(m dataset.Message) string {
	if m.Parts == nil {
		return m.Content
	}
	var b strings.Builder
	for _, p := range m.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
