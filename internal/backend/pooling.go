package backend

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/py"
)

// vLLM's eight pooling backends: requests answered by one JSON body (an
// embedding, a pooled output or rerank scores), timed when the whole body
// has arrived (TTFT = E2EL), whose prompt length is the server's
// usage.prompt_tokens. The kinds differ only in their payloads.
func init() {
	implement("openai-embeddings", pooling{payload: embeddingsPayload})
	implement("openai-embeddings-chat", pooling{payload: embeddingsChat(nil, false)})
	// clip and vlm2vec send what embeddings-chat sends, except that with
	// media vLLM blanks the prompt (clip) or rewrites it (vlm2vec, whose
	// media parts also go first).
	implement("openai-embeddings-clip", pooling{payload: embeddingsChat(clipPrompt, false)})
	implement("openai-embeddings-vlm2vec", pooling{payload: embeddingsChat(vlm2vecPrompt, true)})
	implement("infinity-embeddings", pooling{payload: infinity(nil)})
	implement("infinity-embeddings-clip", pooling{payload: infinity(clipPrompt)})
	implement("vllm-pooling", pooling{payload: vllmPoolingPayload})
	implement("vllm-rerank", pooling{payload: rerankPayload, sequences: rerankSequences})
}

// pooling is a pooling kind's wire format: its payload builder, and the
// JSON body decoder they share.
type pooling struct {
	payload func(r *dataset.Request, o *PayloadOptions) ([]byte, error)
	// sequences is vLLM's num_input_sequences of a request; nil is
	// promptSequences.
	sequences func(r *dataset.Request) int
}

// Payload builds the kind's body.
func (k pooling) Payload(r *dataset.Request, o *PayloadOptions) ([]byte, error) {
	return k.payload(r, o)
}

// Sequences returns vLLM's num_input_sequences of r.
func (k pooling) Sequences(r *dataset.Request) int {
	if k.sequences != nil {
		return k.sequences(r)
	}
	return promptSequences(r)
}

// Decode decodes a pooling response body (encoding_format float or
// base64): vLLM reads usage.prompt_tokens, 0 when the body has none.
func (pooling) Decode(data, text []byte) (Message, []byte, error) {
	var body struct {
		Usage *struct {
			PromptTokens *int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return Message{}, text, err
	}
	m := Message{Output: true, HasPromptTokens: true}
	if body.Usage != nil && body.Usage.PromptTokens != nil {
		m.PromptTokens = *body.Usage.PromptTokens
	}
	return m, text, nil
}

// sequencer is implemented by the codecs of pooling kinds.
type sequencer interface {
	Sequences(r *dataset.Request) int
}

// promptSequences is vLLM's _get_num_input_sequences: the number of
// prompts of a batch, else 1.
func promptSequences(r *dataset.Request) int {
	if len(r.Prompts) > 0 {
		return len(r.Prompts)
	}
	return 1
}

// rerankSequences is a rerank request's number of documents.
func rerankSequences(r *dataset.Request) int { return max(len(r.Prompts)-1, 0) }

// setInput sets "input" to the request's prompt as vLLM passes it: the
// batch as a list of strings, token ids as a list, else the text.
func setInput(p *py.Object, r *dataset.Request) {
	switch {
	case len(r.Prompts) > 0:
		p.Set("input", r.Prompts)
	case r.PromptTokens != nil:
		p.Set("input", r.PromptTokens)
	default:
		p.Set("input", r.Prompt)
	}
}

// embeddingsPayload is the openai-embeddings body: model, input,
// truncate_prompt_tokens -1, then the common update.
func embeddingsPayload(r *dataset.Request, o *PayloadOptions) ([]byte, error) {
	if err := noMedia(r, "openai-embeddings"); err != nil {
		return nil, err
	}
	var p py.Object
	p.Set("model", o.ModelFor(r))
	setInput(&p, r)
	p.Set("truncate_prompt_tokens", -1)
	o.setCommon(&p, r)
	return p.MarshalJSON()
}

// errBatchChat refuses a batch of prompts for a chat-style kind, whose one
// user message holds one text.
var errBatchChat = errors.New("the request is a batch of prompts (dataset random with batch_size > 1), which a chat-style embeddings backend cannot send: use openai-embeddings, infinity-embeddings or vllm-pooling")

// errAudioClip refuses a request whose audio is a clip to upload (the
// audio datasets'), which only openai-audio sends.
var errAudioClip = errors.New("the request carries an audio clip to upload, which only the openai-audio backend sends")

// requestMedia returns the media parts of a request (vLLM's
// multi_modal_content): the non-text parts of its chat messages, in order.
func requestMedia(r *dataset.Request) []dataset.Part {
	var media []dataset.Part
	for _, m := range r.Messages {
		for _, p := range m.Parts {
			if p.Type != dataset.PartText {
				media = append(media, p)
			}
		}
	}
	return media
}

// mediaPrompt returns a request's media parts and the prompt a pooling
// kind sends with them: rewritten, when it has media and rewrite is not
// nil. An audio clip to upload is refused.
func mediaPrompt(r *dataset.Request, rewrite promptRewrite) ([]dataset.Part, string, error) {
	if r.Audio != nil {
		return nil, "", errAudioClip
	}
	media := requestMedia(r)
	if len(media) > 0 && rewrite != nil {
		return media, rewrite(r), nil
	}
	return media, r.Prompt, nil
}

// A promptRewrite is vLLM's preprocessing of a request with media for a
// pooling kind: the prompt it sends instead of r.Prompt.
type promptRewrite func(r *dataset.Request) string

// clipPrompt is vLLM's _preprocess_clip: with media, an empty prompt.
func clipPrompt(*dataset.Request) string { return "" }

// vlm2vecPrompt is vLLM's _preprocess_vlm2vec: with media, requests whose
// id ends in an even number (or has no number: vLLM's
// _try_extract_request_idx, re.search(r"(\d+)$")) ask to represent the
// image alone, the others the image with the prompt as a question. The
// number's parity is its last digit's, however long it is.
func vlm2vecPrompt(r *dataset.Request) string {
	if n := len(r.ID); n > 0 && r.ID[n-1] >= '0' && r.ID[n-1] <= '9' && (r.ID[n-1]-'0')%2 == 1 {
		return "Represent the given image with the following question: " + r.Prompt
	}
	return "Represent the given image."
}

// embeddingsChat returns the payload builder of a chat-style embeddings
// kind: model, one user message whose content is the prompt as a text part
// with the request's media parts after it (before it when mediaFirst),
// truncate_prompt_tokens -1, the common update. With media, rewrite (when
// not nil) replaces the prompt. Like vLLM, it sends the prompt and the
// media, not a dataset's other chat messages.
func embeddingsChat(rewrite promptRewrite, mediaFirst bool) func(*dataset.Request, *PayloadOptions) ([]byte, error) {
	return func(r *dataset.Request, o *PayloadOptions) ([]byte, error) {
		switch {
		case r.PromptTokens != nil:
			return nil, errTokenPrompt
		case len(r.Prompts) > 0:
			return nil, errBatchChat
		}
		media, prompt, err := mediaPrompt(r, rewrite)
		if err != nil {
			return nil, err
		}
		text := dataset.Part{Type: dataset.PartText, Text: prompt}
		parts := append([]dataset.Part{text}, media...)
		if mediaFirst {
			parts = append(media[:len(media):len(media)], text)
		}
		msgs, err := chatMessages([]dataset.Message{{Role: dataset.RoleUser, Parts: parts}})
		if err != nil {
			return nil, err
		}
		var p py.Object
		p.Set("model", o.ModelFor(r))
		p.Set("messages", msgs)
		p.Set("truncate_prompt_tokens", -1)
		o.setCommon(&p, r)
		return p.MarshalJSON()
	}
}

// infinity returns the payload builder of an Infinity kind: model, then
// input, the prompt (after rewrite, when the request has media and rewrite
// is not nil); an empty prompt sends the request's one media item instead,
// its URL as input and its kind as "modality" ("image", "video" or
// "audio": vLLM takes the part type's prefix, which for an input_audio
// part would be "input" and then fails). Then the common update (Infinity
// has no truncate_prompt_tokens). Media with a prompt it would not send
// is refused.
func infinity(rewrite promptRewrite) func(*dataset.Request, *PayloadOptions) ([]byte, error) {
	return func(r *dataset.Request, o *PayloadOptions) ([]byte, error) {
		media, prompt, err := mediaPrompt(r, rewrite)
		if err != nil {
			return nil, err
		}
		if len(media) > 0 && rewrite == nil && prompt != "" {
			// vLLM sends the prompt alone (and refuses multimodal datasets
			// on this backend); vbench does not drop the media silently.
			return nil, fmt.Errorf("the request carries %s content, which infinity-embeddings does not send with a prompt: use infinity-embeddings-clip", media[0].Type)
		}
		var p py.Object
		p.Set("model", o.ModelFor(r))
		switch {
		case len(r.Prompts) > 0 || r.PromptTokens != nil:
			setInput(&p, r)
		case prompt != "":
			p.Set("input", prompt)
		case len(media) == 1:
			p.Set("input", media[0].URL)
			p.Set("modality", string(media[0].Type))
		case len(media) == 0:
			return nil, errors.New("the prompt is empty and the request has no media item, so an Infinity backend has nothing to send")
		default:
			return nil, fmt.Errorf("the prompt is empty and the request has %d media items, and an Infinity backend sends exactly one (use a dataset with one item per request)", len(media))
		}
		o.setCommon(&p, r)
		return p.MarshalJSON()
	}
}

// vllmPoolingPayload is the vllm-pooling body: model,
// truncate_prompt_tokens -1, input, then the common update.
func vllmPoolingPayload(r *dataset.Request, o *PayloadOptions) ([]byte, error) {
	if err := noMedia(r, "vllm-pooling"); err != nil {
		return nil, err
	}
	var p py.Object
	p.Set("model", o.ModelFor(r))
	p.Set("truncate_prompt_tokens", -1)
	setInput(&p, r)
	o.setCommon(&p, r)
	return p.MarshalJSON()
}

// rerankPayload is the vllm-rerank body: model, the batch's first prompt
// as the query and the rest as documents, truncate_prompt_tokens -1. vLLM
// applies neither ignore_eos nor the extra body to it.
func rerankPayload(r *dataset.Request, o *PayloadOptions) ([]byte, error) {
	if len(r.Prompts) < 2 {
		return nil, errors.New("vllm-rerank needs a query and at least one document (the random_rerank dataset makes them)")
	}
	var p py.Object
	p.Set("model", o.ModelFor(r))
	p.Set("query", r.Prompts[0])
	p.Set("documents", r.Prompts[1:])
	p.Set("truncate_prompt_tokens", -1)
	return p.MarshalJSON()
}

// Body formats of a pooling response (the payload's encoding_format).
const (
	formatJSON      = iota // "float", "base64" or none: a JSON body with usage
	formatBytes            // "bytes": raw bytes; usage in the "metadata" header
	formatBytesOnly        // "bytes_only": raw bytes; no usage at all
)

// poolingFormat is the body format a payload's encoding_format asks for:
// the request's own extra body wins over the run's, as in vLLM's merge.
func poolingFormat(r *dataset.Request, o *PayloadOptions) int {
	v, ok := r.ExtraBody["encoding_format"]
	if !ok {
		v = o.ExtraBody["encoding_format"]
	}
	switch v {
	case "bytes":
		return formatBytes
	case "bytes_only":
		return formatBytesOnly
	}
	return formatJSON
}

// rawBody decodes the body of an encoding_format bytes or bytes_only
// response, which vLLM drains without parsing: the prompt length is the
// usage in the "metadata" header's JSON (bytes), or the dataset's
// (bytes_only). It is made per response; its Payload is never called.
type rawBody struct {
	prompt int // the prompt length to report
}

// newRawBody returns the decoder of a bytes or bytes_only response whose
// "metadata" header is metadata (nil when absent), or why the header
// cannot be used (vLLM fails the request then).
func newRawBody(format int, metadata []byte, datasetPromptLen int) (rawBody, error) {
	if format == formatBytesOnly {
		return rawBody{prompt: datasetPromptLen}, nil
	}
	if metadata == nil {
		return rawBody{}, errors.New("encoding_format bytes: the response has no metadata header")
	}
	var md struct {
		Usage *struct {
			PromptTokens *int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(metadata, &md); err != nil {
		return rawBody{}, fmt.Errorf("encoding_format bytes: metadata header %s: %w", strconv.Quote(string(metadata[:min(len(metadata), 200)])), err)
	}
	if md.Usage != nil && md.Usage.PromptTokens != nil {
		return rawBody{prompt: *md.Usage.PromptTokens}, nil
	}
	return rawBody{}, nil
}

// Payload is never called.
func (rawBody) Payload(*dataset.Request, *PayloadOptions) ([]byte, error) {
	return nil, errors.New("internal error: rawBody builds no payload")
}

// Decode reports the body as the result, with the prompt length found.
func (b rawBody) Decode(_, text []byte) (Message, []byte, error) {
	return Message{Output: true, HasPromptTokens: true, PromptTokens: b.prompt}, text, nil
}
