package backend

import (
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/py"
)

// The vllm and openai backends speak the OpenAI Completions API.
func init() {
	implement("vllm", completions{})
	implement("openai", completions{})
}

// completions is the Completions API wire format: a streamed request whose
// chunks carry choices[0].text.
type completions struct{}

// Payload builds vLLM's completions body, keys in vLLM's order.
func (completions) Payload(r *dataset.Request, o *PayloadOptions) ([]byte, error) {
	var p py.Object
	p.Set("model", o.ModelFor(r))
	switch {
	case len(r.Prompts) > 0:
		p.Set("prompt", r.Prompts) // a --random-batch-size group
	case r.PromptTokens != nil:
		p.Set("prompt", r.PromptTokens) // token ids (a trace dataset's), as vLLM sends them
	default:
		p.Set("prompt", r.Prompt)
	}
	p.Set("repetition_penalty", 1.0)
	p.Set("max_tokens", r.OutputLen)
	if o.Logprobs != nil {
		p.Set("logprobs", *o.Logprobs)
	} else {
		p.Set("logprobs", nil)
	}
	p.Set("stream", true)
	p.Set("stream_options", map[string]any{"include_usage": true})
	o.setCommon(&p, r)
	return p.MarshalJSON()
}

// Decode decodes one streamed completions chunk.
func (completions) Decode(data, text []byte) (Message, []byte, error) {
	var m Message
	text, err := decodeChunk(data, false, text, &m)
	return m, text, err
}
