package sim

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"strconv"
	"strings"
)

// api is the HTTP API a generation request came in on: the simulator
// renders the same planned tokens in each one's shapes.
type api uint8

// The generation APIs.
const (
	apiCompletions api = iota // POST /v1/completions
	apiChat                   // POST /v1/chat/completions
	apiResponses              // POST /v1/responses (OpenAI's Responses API)
	apiMessages               // POST /v1/messages (Anthropic's Messages API)
	apiAudio                  // POST /v1/audio/transcriptions and translations (multipart uploads)
)

// idPrefix is the prefix of the response ids of the API.
func (a api) idPrefix() string {
	switch a {
	case apiChat:
		return "chatcmpl-"
	case apiResponses:
		return "resp_"
	case apiMessages:
		return "msg_"
	case apiAudio:
		return "trsc-"
	}
	return "cmpl-"
}

// object is the object type of a non-streamed answer.
func (a api) object() string {
	switch a {
	case apiChat:
		return "chat.completion"
	case apiResponses:
		return "response"
	case apiMessages:
		return "message"
	case apiAudio:
		return "transcription"
	}
	return "text_completion"
}

// apiPrompts returns the token ids of each prompt of a request in the
// API's shape: completions' prompt, chat's and Messages' messages (with
// Messages' system prompt first), Responses' input (a string or input
// messages).
func (s *Server) apiPrompts(req *genRequest, a api) ([][]int, *apiError) {
	switch a {
	case apiCompletions:
		return s.parsePrompts(req, false)
	case apiResponses:
		in := strings.TrimSpace(string(req.Input))
		switch {
		case in == "" || in == "null":
			return nil, badRequest("input: Field required")
		case in[0] == '"':
			var text string
			if err := json.Unmarshal(req.Input, &text); err != nil {
				return nil, badRequest("input: %v", err)
			}
			return [][]int{s.tok.Encode(text)}, nil
		}
		text, media, e := chatContent(req.Input)
		if e != nil {
			return nil, e
		}
		return [][]int{s.withMedia(req, s.tok.Encode(text), media)}, nil
	}
	text, media, e := chatContent(req.Messages)
	if e != nil {
		return nil, e
	}
	if a == apiMessages && len(req.System) > 0 && string(req.System) != "null" {
		sys, e := chatText(json.RawMessage(`[{"role":"system","content":` + string(req.System) + `}]`))
		if e != nil {
			return nil, badRequest("system must be a string or a list of text blocks")
		}
		text = sys + "\n" + text
	}
	if len(req.Tools) > 0 && string(req.Tools) != "null" {
		text += "\n" + string(req.Tools)
	}
	return [][]int{s.withMedia(req, s.tok.Encode(text), media)}, nil
}

// Fragments of the chat reasoning delta (vLLM's reasoning_content).
const (
	chatReasoningStart = `,"delta":{"reasoning_content":"`
	chatReasoningEnd   = `"},"logprobs":null,"finish_reason":null}]}` + "\n\n"
)

// appendChatReasoning appends the chat event of reasoning token k of c.
func (g *generation) appendChatReasoning(b []byte, c *choice, k int) []byte {
	b = append(b, sseData...)
	b = append(b, g.head...)
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(c.index), 10)
	b = append(b, chatReasoningStart...)
	b = append(b, g.s.token(c, k).esc...)
	return append(b, chatReasoningEnd...)
}

// appendPrologue appends what a stream sends before its first token:
// chat's role delta, Responses' response.created, Messages' message_start
// and the first content block's start.
func (g *generation) appendPrologue(b []byte) []byte {
	switch g.api {
	case apiChat:
		b = append(b, sseData...)
		b = append(b, g.head...)
		b = append(b, chatRoleDelta...)
		b = append(b, sseEnd...)
	case apiResponses:
		b = append(b, "event: response.created\ndata: "...)
		b = append(b, `{"type":"response.created","sequence_number":0,"response":{"id":`...)
		b = appendJSONString(b, g.id)
		b = append(b, `,"object":"response","created_at":`...)
		b = strconv.AppendInt(b, g.created, 10)
		b = append(b, `,"status":"in_progress","model":`...)
		b = append(b, g.modelJSON...)
		b = append(b, `,"output":[],"usage":null}}`+"\n\n"...)
		g.seq = 1
	case apiMessages:
		c := &g.choices[0]
		b = append(b, "event: message_start\ndata: "...)
		b = append(b, `{"type":"message_start","message":{"id":`...)
		b = appendJSONString(b, g.id)
		b = append(b, `,"type":"message","role":"assistant","model":`...)
		b = append(b, g.modelJSON...)
		b = append(b, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`...)
		b = strconv.AppendInt(b, int64(c.prompt), 10)
		b = append(b, `,"output_tokens":0}}}`+"\n\n"...)
		b = g.appendBlockStart(b, 0, c.reasoning > 0)
	}
	return b
}

// appendBlockStart appends a Messages content_block_start: a thinking
// block or a text block.
func (g *generation) appendBlockStart(b []byte, index int, thinking bool) []byte {
	b = append(b, "event: content_block_start\ndata: "...)
	b = append(b, `{"type":"content_block_start","index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	if thinking {
		return append(b, `,"content_block":{"type":"thinking","thinking":""}}`+"\n\n"...)
	}
	return append(b, `,"content_block":{"type":"text","text":""}}`+"\n\n"...)
}

// appendBlockStop appends a Messages content_block_stop.
func appendBlockStop(b []byte, index int) []byte {
	b = append(b, "event: content_block_stop\ndata: "...)
	b = append(b, `{"type":"content_block_stop","index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	return append(b, "}\n\n"...)
}

// appendResponsesToken appends the Responses event of token k of c: a
// reasoning text delta for the reasoning tokens, else an output text
// delta.
func (g *generation) appendResponsesToken(b []byte, c *choice, k int) []byte {
	typ, item := "response.output_text.delta", "msg_"
	index := 0
	if k < c.reasoning {
		typ, item = "response.reasoning_text.delta", "rs_"
	} else if c.reasoning > 0 {
		index = 1
	}
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: {\"type\":\""...)
	b = append(b, typ...)
	b = append(b, `","item_id":"`...)
	b = append(b, item...)
	b = append(b, g.idEsc...)
	b = append(b, `","output_index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, `,"content_index":0,"delta":"`...)
	b = append(b, g.s.token(c, k).esc...)
	b = append(b, `","sequence_number":`...)
	b = strconv.AppendInt(b, int64(g.seq), 10)
	g.seq++
	return append(b, "}\n\n"...)
}

// appendMessagesToken appends the Messages event of token k of c: a
// thinking delta for the reasoning tokens, else a text delta; the first
// text token closes the thinking block and opens the text block.
func (g *generation) appendMessagesToken(b []byte, c *choice, k int) []byte {
	index := 0
	if c.reasoning > 0 && k >= c.reasoning {
		index = 1
		if k == c.reasoning {
			b = appendBlockStop(b, 0)
			b = g.appendBlockStart(b, 1, false)
		}
	}
	b = append(b, "event: content_block_delta\ndata: "...)
	b = append(b, `{"type":"content_block_delta","index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	if k < c.reasoning {
		b = append(b, `,"delta":{"type":"thinking_delta","thinking":"`...)
	} else {
		b = append(b, `,"delta":{"type":"text_delta","text":"`...)
	}
	b = append(b, g.s.token(c, k).esc...)
	return append(b, "\"}}\n\n"...)
}

// appendEpilogue appends what a stream sends after its last token:
// completions' and chat's usage (when asked for) and [DONE]; Responses'
// response.completed (or response.incomplete) with the usage; Messages'
// content_block_stop, message_delta with the stop reason and usage, and
// message_stop.
func (g *generation) appendEpilogue(b []byte) []byte {
	c := &g.choices[0]
	switch g.api {
	case apiResponses:
		typ, status, details := "response.completed", "completed", "null"
		if c.reason == finishLength {
			typ, status, details = "response.incomplete", "incomplete", `{"reason":"max_output_tokens"}`
		}
		b = append(b, "event: "...)
		b = append(b, typ...)
		b = append(b, "\ndata: {\"type\":\""...)
		b = append(b, typ...)
		b = append(b, `","sequence_number":`...)
		b = strconv.AppendInt(b, int64(g.seq), 10)
		b = append(b, `,"response":{"id":`...)
		b = appendJSONString(b, g.id)
		b = append(b, `,"object":"response","created_at":`...)
		b = strconv.AppendInt(b, g.created, 10)
		b = append(b, `,"status":"`...)
		b = append(b, status...)
		b = append(b, `","incomplete_details":`...)
		b = append(b, details...)
		b = append(b, `,"model":`...)
		b = append(b, g.modelJSON...)
		b = append(b, `,"usage":{"input_tokens":`...)
		b = strconv.AppendInt(b, int64(c.prompt), 10)
		b = append(b, `,"output_tokens":`...)
		b = strconv.AppendInt(b, int64(c.n), 10)
		b = append(b, `,"output_tokens_details":{"reasoning_tokens":`...)
		b = strconv.AppendInt(b, int64(c.reasoning), 10)
		b = append(b, `},"total_tokens":`...)
		b = strconv.AppendInt(b, int64(c.prompt+c.n), 10)
		return append(b, "}}}\n\n"...)
	case apiMessages:
		b = appendBlockStop(b, min(c.reasoning, 1))
		b = append(b, "event: message_delta\ndata: "...)
		b = append(b, `{"type":"message_delta","delta":{"stop_reason":"`...)
		if c.reason == finishLength {
			b = append(b, "max_tokens"...)
		} else {
			b = append(b, "end_turn"...)
		}
		b = append(b, `","stop_sequence":null},"usage":{"output_tokens":`...)
		b = strconv.AppendInt(b, int64(c.n), 10)
		b = append(b, "}}\n\n"...)
		return append(b, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"...)
	}
	if g.includeUsage && g.quirk != FaultUsageInLast {
		b = g.appendUsage(b)
	}
	return append(b, sseDone...)
}

// apiBody is the non-streamed answer of a Responses, Messages or audio
// request (the audio API's {"text": ...} with its usage):
// the reasoning and the text of its one choice, its usage and how it
// ended.
func (g *generation) apiBody() any {
	c := &g.choices[0]
	var reasoning, text strings.Builder
	for k := range c.n {
		if k < c.reasoning {
			reasoning.WriteString(g.s.token(c, k).text)
		} else {
			text.WriteString(g.s.token(c, k).text)
		}
	}
	type block map[string]any
	if g.api == apiAudio {
		return map[string]any{"text": text.String(), "usage": map[string]any{"type": "tokens", "input_tokens": c.prompt,
			"output_tokens": c.n, "total_tokens": c.prompt + c.n}}
	}
	if g.api == apiMessages {
		var content []block
		if c.reasoning > 0 {
			content = append(content, block{"type": "thinking", "thinking": reasoning.String()})
		}
		content = append(content, block{"type": "text", "text": text.String()})
		stop := "end_turn"
		if c.reason == finishLength {
			stop = "max_tokens"
		}
		return map[string]any{"id": g.id, "type": "message", "role": "assistant", "model": g.model, "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": c.prompt, "output_tokens": c.n}}
	}
	var output []block
	if c.reasoning > 0 {
		output = append(output, block{"type": "reasoning", "id": "rs_" + g.id,
			"content": []block{{"type": "reasoning_text", "text": reasoning.String()}}})
	}
	output = append(output, block{"type": "message", "id": "msg_" + g.id, "status": "completed", "role": "assistant",
		"content": []block{{"type": "output_text", "text": text.String(), "annotations": []any{}}}})
	status, details := "completed", any(nil)
	if c.reason == finishLength {
		status, details = "incomplete", map[string]string{"reason": "max_output_tokens"}
	}
	return map[string]any{"id": g.id, "object": "response", "created_at": g.created, "model": g.model, "status": status,
		"incomplete_details": details, "output": output,
		"usage": map[string]any{"input_tokens": c.prompt, "output_tokens": c.n, "total_tokens": c.prompt + c.n,
			"output_tokens_details": map[string]int{"reasoning_tokens": c.reasoning}}}
}

// transcriptionRequest reads an Audio API upload (multipart): its WAV
// file's duration sets the prompt (audioTokensPerSec tokens a second, a
// media unit of prefill) and its fields the rest: model,
// max_completion_tokens, stream, stream_include_usage. Everything
// arrives as form text, as vLLM's client sends it (Python's str()).
func (s *Server) transcriptionRequest(body []byte, contentType string, req *genRequest) ([][]int, *apiError) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		return nil, badRequest("the audio API takes a multipart/form-data upload, got Content-Type %q", contentType)
	}
	form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(maxBodyBytes)
	if err != nil {
		return nil, badRequest("invalid multipart form: %v", err)
	}
	defer form.RemoveAll()
	files := form.File["file"]
	if len(files) == 0 {
		return nil, badRequest("file: Field required")
	}
	f, err := files[0].Open()
	if err != nil {
		return nil, badRequest("file: %v", err)
	}
	defer f.Close()
	head := make([]byte, maxMediaHeaderBytes)
	n, _ := io.ReadFull(f, head)
	secs, ok := wavSeconds(base64.StdEncoding.EncodeToString(head[:n]))
	if !ok {
		return nil, badRequest("file: the simulator reads WAV audio only")
	}
	field := func(k string) string {
		if v := form.Value[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	req.Model = field("model")
	if v := field("max_completion_tokens"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, badRequest("max_completion_tokens: %q is not an integer", v)
		}
		req.MaxCompletionTokens = &n
	}
	truthy := func(v string) bool { return v == "True" || v == "true" || v == "1" }
	req.Stream = truthy(field("stream"))
	req.IgnoreEOS = truthy(field("ignore_eos"))
	if req.Stream && truthy(field("stream_include_usage")) {
		req.StreamOptions = &struct {
			IncludeUsage bool `json:"include_usage"`
		}{true}
	}
	tokens := max(1, int(math.Ceil(secs*audioTokensPerSec)))
	ids := make([]int, tokens)
	key := promptKeyString(files[0].Filename) + uint64(files[0].Size)
	for k := range ids {
		ids[k] = int(hash3(s.cfg.Seed, saltMedia, key, uint64(k)) % uint64(WordVocabSize))
	}
	req.mediaUnits++
	return [][]int{ids}, nil
}

// chunkless reports that the stream is not made of completions-style
// chunks (the Responses and Messages APIs): the usage-in-last and
// empty-final faults leave it as it is.
func (g *generation) chunkless() bool { return g.api == apiResponses || g.api == apiMessages }
