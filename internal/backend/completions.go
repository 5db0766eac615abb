package backend

import "github.com/vbench/vbench/internal/dataset"

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
	var p orderedMap
	p.set("model", o.Model)
	if len(r.Prompts) > 0 {
		p.set("prompt", r.Prompts) // a --random-batch-size group
	} else {
		p.set("prompt", r.Prompt)
	}
	p.set("repetition_penalty", 1.0)
	p.set("max_tokens", r.OutputLen)
	if o.Logprobs != nil {
		p.set("logprobs", *o.Logprobs)
	} else {
		p.set("logprobs", nil)
	}
	p.set("stream", true)
	p.set("stream_options", map[string]any{"include_usage": true})
	o.setCommon(&p)
	return p.MarshalJSON()
}

// Decode decodes one streamed completions chunk.
func (completions) Decode(data, text []byte) (Message, []byte, error) {
	var m Message
	text, err := decodeChunk(data, false, text, &m)
	return m, text, err
}
