package sim

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
)

// The exact bytes of 3-token streams from a reasoning model (one
// reasoning token): chat's reasoning_content delta and usage details, the
// Responses API's events and the Messages API's events and content blocks.
func TestAPIStreamFraming(t *testing.T) {
	const chatHead = `data: {"id":"chatcmpl-bench-1","object":"chat.completion.chunk","created":946684800,"model":"sim-model","choices":[`
	tests := []struct {
		name, path, body string
		want             []string // events, each followed by "\n\n"
	}{{
		name: "chat with reasoning",
		path: "/v1/chat/completions",
		body: `{"messages":[{"role":"user","content":"hello world"}],"max_completion_tokens":3,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`,
		want: []string{
			chatHead + `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
			chatHead + `{"index":0,"delta":{"reasoning_content":" disu"},"logprobs":null,"finish_reason":null}]}`,
			chatHead + `{"index":0,"delta":{"content":" voru"},"logprobs":null,"finish_reason":null}]}`,
			chatHead + `{"index":0,"delta":{"content":" beru"},"logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
			chatHead + `],"usage":{"prompt_tokens":2,"total_tokens":5,"completion_tokens":3,"completion_tokens_details":{"reasoning_tokens":1}}}`,
			`data: [DONE]`,
		},
	}, {
		name: "responses",
		path: "/v1/responses",
		body: `{"model":"sim-model","input":"hello world","max_output_tokens":3,"ignore_eos":true,"stream":true}`,
		want: []string{
			"event: response.created\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_bench-1","object":"response","created_at":946684800,"status":"in_progress","model":"sim-model","output":[],"usage":null}}`,
			"event: response.reasoning_text.delta\n" + `data: {"type":"response.reasoning_text.delta","item_id":"rs_resp_bench-1","output_index":0,"content_index":0,"delta":" disu","sequence_number":1}`,
			"event: response.output_text.delta\n" + `data: {"type":"response.output_text.delta","item_id":"msg_resp_bench-1","output_index":1,"content_index":0,"delta":" voru","sequence_number":2}`,
			"event: response.output_text.delta\n" + `data: {"type":"response.output_text.delta","item_id":"msg_resp_bench-1","output_index":1,"content_index":0,"delta":" beru","sequence_number":3}`,
			"event: response.incomplete\n" + `data: {"type":"response.incomplete","sequence_number":4,"response":{"id":"resp_bench-1","object":"response","created_at":946684800,"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"model":"sim-model","usage":{"input_tokens":2,"output_tokens":3,"output_tokens_details":{"reasoning_tokens":1},"total_tokens":5}}}`,
		},
	}, {
		name: "messages",
		path: "/v1/messages",
		body: `{"model":"sim-model","max_tokens":3,"messages":[{"role":"user","content":"hello world"}],"ignore_eos":true,"stream":true}`,
		want: []string{
			"event: message_start\n" + `data: {"type":"message_start","message":{"id":"msg_bench-1","type":"message","role":"assistant","model":"sim-model","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":2,"output_tokens":0}}}`,
			"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
			"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" disu"}}`,
			"event: content_block_stop\n" + `data: {"type":"content_block_stop","index":0}`,
			"event: content_block_start\n" + `data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
			"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" voru"}}`,
			"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" beru"}}`,
			"event: content_block_stop\n" + `data: {"type":"content_block_stop","index":1}`,
			"event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":3}}`,
			"event: message_stop\n" + `data: {"type":"message_stop"}`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := testConfig()
				cfg.ReasoningTokens = 1
				s := bubbleServer(t, cfg)
				rec := serve(t, s.Handler(), newRecorder(), context.Background(), "POST", tt.path, tt.body,
					map[string]string{"X-Request-Id": "bench-1"})
				if rec.status != 200 {
					t.Fatalf("status %d: %s", rec.status, rec.body.String())
				}
				want := strings.Join(tt.want, "\n\n") + "\n\n"
				if got := rec.body.String(); got != want {
					t.Errorf("body:\n%s\nwant:\n%s", got, want)
				}
			})
		})
	}
}

// Non-streamed Responses and Messages answers carry the reasoning and the
// text apart, with the usage; Messages needs max_tokens.
func TestAPINonStreamed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.ReasoningTokens = 1
		s := bubbleServer(t, cfg)
		for _, tc := range []struct{ path, body, want string }{
			{"/v1/responses", `{"input":[{"role":"user","content":[{"type":"input_text","text":"hello world"}]}],"max_output_tokens":3,"ignore_eos":true}`,
				`"usage":{"input_tokens":2,"output_tokens":3,"output_tokens_details":{"reasoning_tokens":1},"total_tokens":5}`},
			{"/v1/responses", `{"input":"hello world","max_output_tokens":3,"ignore_eos":true}`,
				`"output":[{"content":[{"text":" disu","type":"reasoning_text"}],"id":"rs_resp_`},
			{"/v1/messages", `{"system":"be brief","max_tokens":3,"messages":[{"role":"user","content":"hello world"}],"ignore_eos":true}`,
				`"type":"thinking"},{"text":" `},
			{"/v1/messages", `{"system":"be brief","max_tokens":3,"messages":[{"role":"user","content":"hello world"}],"ignore_eos":true}`,
				`"usage":{"input_tokens":4,"output_tokens":3}`},
			{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hello world"}],"max_tokens":3,"ignore_eos":true}`,
				`"content":" voru beru","reasoning_content":" disu"`},
		} {
			rec := call(t, s, "POST", tc.path, tc.body)
			if rec.status != 200 || !strings.Contains(rec.body.String(), tc.want) {
				t.Errorf("%s %s: %d %s\nwant it to contain %s", tc.path, tc.body, rec.status, rec.body.String(), tc.want)
			}
		}
		if rec := call(t, s, "POST", "/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`); rec.status != 400 ||
			!strings.Contains(rec.body.String(), "max_tokens: Field required") {
			t.Errorf("Messages without max_tokens: %d %s", rec.status, rec.body.String())
		}
	})
}
