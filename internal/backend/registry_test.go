package backend

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// TestVLLMKinds pins vLLM's twelve backends, then vbench's two: their order (the --backend
// choices), what each needs of the URL, its task, whether vLLM treats it
// as OpenAI compatible and whether it streams, and which vbench implements.
func TestVLLMKinds(t *testing.T) {
	want := []struct {
		name, suffix, api string
		task              Task
		compat, stream    bool
	}{
		{"vllm", "completions", "OpenAI Completions API", TaskGeneration, true, true},
		{"openai", "completions", "OpenAI Completions API", TaskGeneration, true, true},
		{"openai-chat", "chat/completions", "OpenAI Chat Completions API", TaskGeneration, true, true},
		{"openai-audio", "transcriptions", "OpenAI Audio API", TaskTranscription, false, true},
		{"openai-embeddings", "embeddings", "OpenAI Embeddings API", TaskPooling, false, false},
		{"openai-embeddings-chat", "embeddings", "OpenAI Embeddings API", TaskPooling, false, false},
		{"openai-embeddings-clip", "embeddings", "OpenAI Embeddings API", TaskPooling, false, false},
		{"openai-embeddings-vlm2vec", "embeddings", "OpenAI Embeddings API", TaskPooling, false, false},
		{"infinity-embeddings", "embeddings", "Infinity Embeddings API", TaskPooling, false, false},
		{"infinity-embeddings-clip", "embeddings", "Infinity Embeddings API", TaskPooling, false, false},
		{"vllm-pooling", "pooling", "vLLM Pooling API", TaskPooling, false, false},
		{"vllm-rerank", "rerank", "vLLM score API", TaskPooling, false, false},
		// vbench's own, after vLLM's.
		{"openai-responses", "responses", "OpenAI Responses API", TaskGeneration, false, true},
		{"anthropic-messages", "messages", "Anthropic Messages API", TaskGeneration, false, true},
	}
	kinds := Kinds()
	if len(kinds) != len(want) {
		t.Fatalf("%d kinds registered, want vLLM's 12 and vbench's 2: %v", len(kinds), Names())
	}
	for i, w := range want {
		k := kinds[i]
		if k.Name != w.name || k.URLSuffix != w.suffix || k.APIName != w.api || k.Task != w.task || k.OpenAICompatible != w.compat || k.Stream != w.stream {
			t.Errorf("kind %d = %+v, want %+v", i, k, w)
		}
		if OpenAICompatible(w.name) != w.compat {
			t.Errorf("OpenAICompatible(%q) = %v", w.name, !w.compat)
		}
	}
	// vbench implements every kind; one registered without a codec is
	// listed but not supported.
	if got := SupportedNames(); !slices.Equal(got, Names()) {
		t.Errorf("SupportedNames() = %v, want every kind %v", got, Names())
	}
	if err := Register(Kind{Name: "toy-nocodec", URLSuffix: "toy", APIName: "Toy API", Task: TaskGeneration}); err != nil {
		t.Fatal(err)
	}
	defer Unregister("toy-nocodec")
	if got := UnsupportedMessage("toy-nocodec"); got != `backend "toy-nocodec" is not supported by vbench yet (supported: `+strings.Join(Names()[:len(Names())-1], ", ")+`)` {
		t.Errorf("UnsupportedMessage = %q", got)
	}
	if OpenAICompatible("nope") {
		t.Error(`OpenAICompatible("nope") = true`)
	}
	if got := TaskPooling.String() + " " + TaskGeneration.String() + " " + TaskTranscription.String() + " " + Task(9).String(); got != "pooling generation transcription Task(9)" {
		t.Errorf("task names %q", got)
	}
}

// TestKindsIsACopy checks that changing Kinds' result leaves the registry
// alone.
func TestKindsIsACopy(t *testing.T) {
	k := Kinds()
	k[0].Name, k[0].Codec = "changed", nil
	if got, _ := Lookup("vllm"); got.Name != "vllm" || !got.Supported() {
		t.Errorf("Lookup(vllm) = %+v after changing Kinds()", got)
	}
}

// TestMessageNoAllocs pins the per-event cost of the codec seam: folding
// a token message into the record (one Codec.Decode call) allocates
// nothing once the buffers have grown.
func TestMessageNoAllocs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		codec Codec
		data  string
	}{
		{"completions", completions{}, `{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":" tok","logprobs":null,"finish_reason":null}]}`},
		{"chat", chat{}, `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":null}]}`},
		{"chat reasoning", chat{}, `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"reasoning_content":"r","content":" tok"},"finish_reason":null}]}`},
		{"responses", responses{}, `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":" tok","sequence_number":4}`},
		{"messages", messages{}, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" tok"}}`},
	} {
		rec := &record.Record{Chunks: make([]time.Duration, 0, 1024)}
		st := stream{rec: rec, codec: tc.codec, what: "SSE message", text: make([]byte, 0, 8192)}
		data := []byte(tc.data)
		allocs := testing.AllocsPerRun(500, func() {
			if len(rec.Chunks) == cap(rec.Chunks) {
				rec.Chunks, st.text = rec.Chunks[:0], st.text[:0]
			}
			if !st.message(data, time.Millisecond) {
				t.Fatal(st.err)
			}
		})
		if allocs != 0 || string(st.text[:4]) != " tok" {
			t.Errorf("%s: %v allocations per message, text %.8q", tc.name, allocs, st.text)
		}
	}
}

// wholeCompletions is a test kind: a completions request answered with one
// JSON body (stream false), whose choices[0].text is the output.
type wholeCompletions struct{ completions }

func (wholeCompletions) Decode(data, text []byte) (Message, []byte, error) {
	var m Message
	text, err := decodeChunkJSON(data, false, text, &m)
	return m, text, err
}

// TestNonStreaming sends requests of a non-streaming kind through both
// HTTP paths over the framings a body can have: the whole body is one
// message, timed when its last byte arrived.
func TestNonStreaming(t *testing.T) {
	if err := Register(Kind{Name: "test-whole", URLSuffix: "completions", APIName: "Test API", Task: TaskGeneration, Codec: wholeCompletions{}}); err != nil {
		t.Fatal(err)
	}
	defer Unregister("test-whole")
	body := `{"choices":[{"text":"` + strings.Repeat("x", 9000) + `"}],"usage":{"prompt_tokens":11,"completion_tokens":2}}`
	bad := `{"choices":[{"text":"a"}],`
	chunked := func(parts ...string) string {
		var b strings.Builder
		for _, p := range parts {
			fmt.Fprintf(&b, "%x\r\n%s\r\n", len(p), p)
		}
		return b.String() + "0\r\n\r\n"
	}
	tests := []struct {
		name, resp string
		close      bool
		want       string // error prefix, "" = success
		h1Only     bool
	}{
		{"Content-Length", fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body), false, "", false},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(body[:10], body[10:5000], body[5000:]), false, "", false},
		{"close-delimited", "HTTP/1.1 200 OK\r\n\r\n" + body, true, "", false},
		{"invalid JSON", fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(bad), bad), false, "invalid JSON in response body: unexpected end of JSON input", false},
		{"cut short", fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body)+5, body), true, "unexpected EOF", true},
		{"no output", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", false, "Never received a valid chunk", false},
	}
	for _, tt := range tests {
		for path, c := range paths(t, Config{Backend: "test-whole", URL: newRawServer(t, tt.close, tt.resp).url()}) {
			if tt.h1Only && path != "h1" {
				continue // net/http words a cut body differently
			}
			t.Run(tt.name+" "+path, func(t *testing.T) {
				for i := range 2 {
					rec := sendOne(context.Background(), t, c, "")
					if tt.want == "" && !rec.Success || tt.want != "" && !strings.HasPrefix(rec.Error, tt.want) {
						t.Fatalf("request %d: success %v error %q, want %q", i, rec.Success, rec.Error, tt.want)
					}
					if tt.want != "" {
						continue
					}
					if len(rec.GeneratedText) != 9000 || rec.OutputTokens != 2 || rec.PromptLen != 11 || len(rec.Chunks) != 1 || rec.End != rec.Chunks[0] || rec.End < rec.Start {
						t.Errorf("request %d: %d bytes of text, %d output tokens, prompt %d, chunks %v, start %v end %v",
							i, len(rec.GeneratedText), rec.OutputTokens, rec.PromptLen, rec.Chunks, rec.Start, rec.End)
					}
				}
			})
		}
	}
}
