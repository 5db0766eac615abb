package backend

import (
	"fmt"

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
	if err := noMedia(r, "a completions backend (vllm or openai)"); err != nil {
		return nil, err
	}
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
	m.Chunk = true
	return m, text, err
}

// noMedia refuses a request that carries images, videos or audio, which
// the named backend cannot send (vbench never drops them silently).
func noMedia(r *dataset.Request, backend string) error {
	if r.Audio != nil {
		return fmt.Errorf("the request carries an audio clip, which %s cannot send: use openai-audio", backend)
	}
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			if p.Type != dataset.PartText {
				return fmt.Errorf("the request carries %s content, which %s cannot send: use openai-chat (or, for embeddings, openai-embeddings-chat, -clip or -vlm2vec)", p.Type, backend)
			}
		}
	}
	return nil
}
