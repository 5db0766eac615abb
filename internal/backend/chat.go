package backend

import (
	"errors"

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
	var p py.Object
	p.Set("model", o.ModelFor(r))
	p.Set("messages", []chatMessage{{Role: "user", Content: []contentPart{{Type: "text", Text: r.Prompt}}}})
	p.Set("max_completion_tokens", r.OutputLen)
	p.Set("stream", true)
	p.Set("stream_options", map[string]any{"include_usage": true})
	o.setCommon(&p)
	return p.MarshalJSON()
}

// Decode decodes one streamed chat chunk.
func (chat) Decode(data, text []byte) (Message, []byte, error) {
	var m Message
	text, err := decodeChunk(data, true, text, &m)
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

// errTokenPrompt refuses a prompt of token ids, which the chat API cannot
// take (vLLM refuses token-id datasets with a chat backend too).
var errTokenPrompt = errors.New("the prompt is a list of token ids (a trace dataset's), which only a completions backend (vllm or openai) can send")
