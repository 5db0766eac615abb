package backend

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"slices"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/wav"
)

// Events as OpenAI's and vLLM's Responses API stream them.
var respEvents = []string{
	`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"m","output":[],"usage":null}}`,
	`{"type":"response.reasoning_text.delta","item_id":"rs_1","output_index":0,"content_index":0,"delta":"Let me think","sequence_number":3}`,
	`{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":" Hello \u00e9\"","logprobs":[],"sequence_number":5}`,
	`{"delta":"x","type":"response.output_text.delta"}`,
	`{"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","status":"completed","incomplete_details":null,"usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":3},"total_tokens":19}}}`,
	`{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":4,"output_tokens":8}}}`,
	`{"type":"response.function_call_arguments.delta","delta":"{\"a\""}`,
	`{"type":"response.output_text.delta","delta":""}`,
}

// Events as Anthropic's and vLLM's Messages API stream them.
var msgEvents = []string{
	`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`,
	`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm"}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi \u00fc"}}`,
	`{"type":"ping"}`,
	`{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":15}}`,
	`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":3,"output_tokens":2}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"x\":"}}`,
	`{"type":"message_stop"}`,
}

// The Responses and Messages decoders read what each event means: token
// events (answer or reasoning), usage, the finish reason, the server's
// error.
func TestAPIEventDecoders(t *testing.T) {
	tests := []struct {
		codec Codec
		event string
		text  string
		want  Message
		err   string
	}{
		{responses{}, respEvents[0], "", Message{}, ""},
		{responses{}, respEvents[1], "", Message{Output: true, Reasoning: true}, ""},
		{responses{}, respEvents[2], " Hello é\"", Message{Output: true, Answer: true}, ""},
		{responses{}, respEvents[3], "x", Message{Output: true, Answer: true}, ""},
		{responses{}, respEvents[4], "", Message{HasPromptTokens: true, PromptTokens: 12, HasOutputTokens: true, OutputTokens: 7,
			HasReasoningTokens: true, ReasoningTokens: 3, FinishReason: "stop"}, ""},
		{responses{}, respEvents[5], "", Message{HasPromptTokens: true, PromptTokens: 4, HasOutputTokens: true, OutputTokens: 8, FinishReason: "length"}, ""},
		{responses{}, respEvents[6], "", Message{}, ""},
		{responses{}, respEvents[7], "", Message{Output: true}, ""},
		{responses{}, `{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}}`, "", Message{}, "response.failed: boom"},
		{responses{}, `{"type":"error","code":"x","message":"bad input"}`, "", Message{}, "error: bad input"},
		{responses{}, `{"type":`, "", Message{}, "unexpected end of JSON input"},
		{messages{}, msgEvents[0], "", Message{HasPromptTokens: true, PromptTokens: 25}, ""},
		{messages{}, msgEvents[1], "", Message{}, ""},
		{messages{}, msgEvents[2], "", Message{Output: true, Reasoning: true}, ""},
		{messages{}, msgEvents[3], "Hi ü", Message{Output: true, Answer: true}, ""},
		{messages{}, msgEvents[4], "", Message{}, ""},
		{messages{}, msgEvents[5], "", Message{HasOutputTokens: true, OutputTokens: 15, FinishReason: "length"}, ""},
		{messages{}, msgEvents[6], "", Message{HasPromptTokens: true, PromptTokens: 3, HasOutputTokens: true, OutputTokens: 2, FinishReason: "stop"}, ""},
		{messages{}, msgEvents[7], "", Message{Output: true}, ""},
		{messages{}, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "", Message{}, "overloaded_error: Overloaded"},
	}
	for _, tt := range tests {
		m, text, err := tt.codec.Decode([]byte(tt.event), nil)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%T %s: err %v, want %q", tt.codec, tt.event, err, tt.err)
			}
			continue
		}
		if err != nil || m != tt.want || string(text) != tt.text {
			t.Errorf("%T %s\n= %+v %q %v\nwant %+v %q", tt.codec, tt.event, m, text, err, tt.want, tt.text)
		}
	}
}

// FuzzAPIEvents checks that the allocation-free scanners of Responses and
// Messages events agree with encoding/json wherever they accept a
// document.
func FuzzAPIEvents(f *testing.F) {
	for _, e := range respEvents {
		f.Add(e)
	}
	for _, e := range msgEvents {
		f.Add(e)
	}
	for _, e := range []string{`{"type":"message_delta","usage":{"output_tokens":1},"message":{"usage":{"output_tokens":2}}}`,
		`{"Type":"response.output_text.delta","delta":"a"}`, `{"type":"content_block_delta","delta":{"text":"a","Text":"b"}}`} {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var a, b respEvent
		if scanRespEvent([]byte(doc), &a) {
			if err := decodeRespEventJSON([]byte(doc), &b); err != nil {
				t.Fatalf("responses: scanner accepted %q, encoding/json: %v", doc, err)
			}
			if a.typ != b.typ || a.usage != b.usage || a.reason != b.reason || (a.delta.n > 0) != (b.delta.n > 0) ||
				string(a.appendDelta(nil)) != string(b.appendDelta(nil)) {
				t.Fatalf("responses %q: scanner %+v, encoding/json %+v", doc, a, b)
			}
		}
		var c, d msgEvent
		if scanMsgEvent([]byte(doc), &c) {
			if err := decodeMsgEventJSON([]byte(doc), &d); err != nil {
				t.Fatalf("messages: scanner accepted %q, encoding/json: %v", doc, err)
			}
			ct, _, _ := messages{}.Decode([]byte(doc), nil)
			if c.typ != d.typ || c.usage != d.usage || c.stop != d.stop || c.thinking != d.thinking {
				t.Fatalf("messages %q: scanner %+v, encoding/json %+v (%+v)", doc, c, d, ct)
			}
			var dt []byte
			if d.textStr != "" {
				dt = []byte(d.textStr)
			}
			ctext := c.text.raw
			if !c.text.plain && ctext != nil {
				ctext = appendUnquoted(nil, ctext)
			}
			if string(ctext) != string(dt) {
				t.Fatalf("messages %q: text %q, encoding/json %q", doc, ctext, dt)
			}
		}
	})
}

// The Responses and Messages payloads, keys in order; the Messages kind
// sends anthropic-version and, with a key, x-api-key.
func TestAPIPayloads(t *testing.T) {
	req := dataset.Request{Prompt: "hi <there>", PromptLen: 3, OutputLen: 5}
	conv := dataset.Request{Messages: []dataset.Message{{Role: dataset.RoleSystem, Content: "Be brief."}, {Role: dataset.RoleUser, Content: "Q?"}}, OutputLen: 4}
	for _, tc := range []struct {
		backend, url string
		req          dataset.Request
		want         string
	}{
		{"openai-responses", "/v1/responses", req, `{"model":"m","input":"hi <there>","max_output_tokens":5,"stream":true,"temperature":0}`},
		{"openai-responses", "/v1/responses", conv, `{"model":"m","input":[{"content":"Be brief.","role":"system"},{"content":"Q?","role":"user"}],"max_output_tokens":4,"stream":true,"temperature":0}`},
		{"anthropic-messages", "/v1/messages", req, `{"model":"m","max_tokens":5,"messages":[{"content":"hi <there>","role":"user"}],"stream":true,"temperature":0}`},
		{"anthropic-messages", "/v1/messages", conv, `{"model":"m","max_tokens":4,"system":"Be brief.","messages":[{"content":"Q?","role":"user"}],"stream":true,"temperature":0}`},
	} {
		c, err := New(Config{Backend: tc.backend, URL: "http://h" + tc.url, Model: "m", APIKey: "k", ExtraBody: map[string]any{"temperature": 0}})
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Prepare([]dataset.Request{tc.req}, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(p[0].body); got != tc.want {
			t.Errorf("%s payload\n got %s\nwant %s", tc.backend, got, tc.want)
		}
		h := p[0].header
		anthropic := tc.backend == "anthropic-messages"
		if (h.Get("anthropic-version") == AnthropicVersion) != anthropic || (h.Get("x-api-key") == "k") != anthropic || h.Get("Authorization") != "Bearer k" {
			t.Errorf("%s headers %v", tc.backend, h)
		}
	}
}

// Chat messages with content parts go as vLLM's chat request function
// sends them: the prompt's text part (type first) then the media, or, for
// a message vLLM's multimodal chat transformation made, its text part
// with the text first.
func TestChatContentParts(t *testing.T) {
	img := dataset.Part{Type: dataset.PartImage, URL: "data:image/jpeg;base64,AAAA"}
	vid := dataset.Part{Type: dataset.PartVideo, URL: "data:video/jpeg;base64,AA,BB"}
	for _, tc := range []struct {
		msgs []dataset.Message
		want string
	}{
		{[]dataset.Message{{Role: dataset.RoleUser, Parts: []dataset.Part{{Type: dataset.PartText, Text: "see"}, img, vid}}},
			`"messages":[{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AAAA"}},{"type":"video_url","video_url":{"url":"data:video/jpeg;base64,AA,BB"}}]}]`},
		{[]dataset.Message{{Role: dataset.RoleUser, Parts: []dataset.Part{{Type: dataset.PartText, Text: "see"}, img}, Transformed: true}},
			`"messages":[{"role":"user","content":[{"text":"see","type":"text"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AAAA"}}]}]`},
		{[]dataset.Message{{Role: dataset.RoleSystem, Content: "s"}, {Role: dataset.RoleUser, Content: "q"}},
			`"messages":[{"role":"system","content":"s"},{"role":"user","content":"q"}]`},
	} {
		c, err := New(Config{Backend: "openai-chat", URL: "http://h/v1/chat/completions", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Prepare([]dataset.Request{{Prompt: "see", Messages: tc.msgs, OutputLen: 2}}, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(p[0].body); !strings.Contains(got, tc.want) {
			t.Errorf("payload %s\nwant it to contain %s", got, tc.want)
		}
	}
}

// The audio backend uploads the clip as vLLM does: a multipart form with
// the WAV as "file" and each payload field as Python's str(); the
// record's input audio duration is the clip's.
func TestAudioPayload(t *testing.T) {
	var wavb bytes.Buffer
	if err := wav.Encode16(&wavb, &wav.Audio{Rate: 16000, Samples: make([]float64, 24000)}); err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Backend: "openai-audio", URL: "http://h/v1/audio/transcriptions", Model: "whisper", IgnoreEOS: true,
		ExtraBody: map[string]any{"temperature": 0.0, "seed": 3}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Prepare([]dataset.Request{{Prompt: "x", OutputLen: 7, Audio: &dataset.AudioClip{WAV: wavb.Bytes(), Seconds: 1.5}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if p[0].audioSeconds != 1.5 {
		t.Errorf("audio seconds %v", p[0].audioSeconds)
	}
	_, params, err := mime.ParseMediaType(p[0].header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" || !strings.HasPrefix(p[0].header.Get("Content-Type"), "multipart/form-data") {
		t.Fatalf("Content-Type %q: %v", p[0].header.Get("Content-Type"), err)
	}
	r := multipart.NewReader(bytes.NewReader(p[0].body), params["boundary"])
	var names []string
	fields := map[string]string{}
	for {
		part, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(part)
		names = append(names, part.FormName())
		if part.FormName() == "file" {
			a, err := wav.Decode(b)
			if err != nil || a.Seconds() != 1.5 || part.FileName() != "audio.wav" || part.Header.Get("Content-Type") != "audio/wav" {
				t.Errorf("file part: %v %v %q", a, err, part.FileName())
			}
			continue
		}
		fields[part.FormName()] = string(b)
	}
	want := []string{"file", "model", "max_completion_tokens", "stream", "language", "stream_include_usage", "stream_continuous_usage_stats", "ignore_eos", "seed", "temperature"}
	if !slices.Equal(names, want) {
		t.Errorf("parts %q, want %q", names, want)
	}
	for k, v := range map[string]string{"model": "whisper", "max_completion_tokens": "7", "stream": "True", "language": "en",
		"stream_include_usage": "True", "ignore_eos": "True", "temperature": "0.0", "seed": "3"} {
		if fields[k] != v {
			t.Errorf("field %s = %q, want %q", k, fields[k], v)
		}
	}
	if _, err := c.Prepare([]dataset.Request{{Prompt: "no audio"}}, false); err == nil || !strings.Contains(err.Error(), "no audio clip") {
		t.Errorf("a request without audio: %v", err)
	}
}

// A request's own payload members (vLLM's request_overrides, e.g. BFCL's
// tools) merge over the run's extra body, the request's winning.
func TestRequestExtraBody(t *testing.T) {
	c, err := New(Config{Backend: "openai-chat", URL: "http://h/v1/chat/completions", Model: "m",
		ExtraBody: map[string]any{"temperature": 0.5, "tool_choice": "none"}})
	if err != nil {
		t.Fatal(err)
	}
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "f"}}}
	p, err := c.Prepare([]dataset.Request{{Prompt: "q", OutputLen: 2, ExtraBody: map[string]any{"tools": tools, "tool_choice": "auto"}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `"stream_options":{"include_usage":true},"temperature":0.5,"tool_choice":"auto","tools":[{"function":{"name":"f"},"type":"function"}]}`
	if got := string(p[0].body); !strings.HasSuffix(got, want) {
		t.Errorf("payload %s\nwant it to end %s", got, want)
	}
}

// A completions backend refuses media rather than drop it.
func TestCompletionsRefusesMedia(t *testing.T) {
	c, err := New(Config{Backend: "openai", URL: "http://h/v1/completions", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	img := dataset.Request{Prompt: "p", Messages: []dataset.Message{{Role: dataset.RoleUser, Parts: []dataset.Part{{Type: dataset.PartText, Text: "p"}, {Type: dataset.PartImage, URL: "x.png"}}}}}
	if _, err := c.Prepare([]dataset.Request{img}, false); err == nil || !strings.Contains(err.Error(), "carries image content") {
		t.Errorf("image: %v", err)
	}
	if _, err := c.Prepare([]dataset.Request{{Prompt: "p", Audio: &dataset.AudioClip{}}}, false); err == nil || !strings.Contains(err.Error(), "use openai-audio") {
		t.Errorf("audio: %v", err)
	}
}
