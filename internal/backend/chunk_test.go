package backend

import (
	"bytes"
	"strings"
	"testing"
)

// realChunks are chunk shapes real servers send; scanChunk must handle every
// one of them itself (no fallback).
var realChunks = []string{
	`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" tok","logprobs":null,"finish_reason":null,"stop_reason":null}]}`,
	`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
	`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":12,"total_tokens":76,"completion_tokens":64}}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" Hello"},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"think","content":null},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"x","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":0}}}`,
	`{"choices":[{"text":"caf\u00e9 \"q\" \\ \/ \b\f\n\r\t"}]}`,
	`{"choices":[{"text":"emoji \ud83d\ude00 and lone \ud800 and \udc00 end"}]}`,
	`{"choices":[{"text":"high then bad \ud83dx \ud83d\u0041"}]}`,
	`{"choices":[{"text":"UTF-8 😀 ünï and invalid ` + "\xff\xfe" + ` bytes"}]}`,
	`{"choices":[{"text":"a","logprobs":{"tokens":["a"],"token_logprobs":[-0.5],"top_logprobs":[{"a":-0.5,"b":-1.2e-3}],"text_offset":[0]}}]}`,
	`{"choices":[{"text":"a"},{"text":"b"},null]}`,
	`{"choices":[null]}`,
	`{"choices":null,"usage":null}`,
	`{"choices":[{"text":null,"delta":null}]}`,
	`{"usage":{"prompt_tokens":null,"completion_tokens":-0}}`,
	`{"usage":{"prompt_tokens":9223372036854775807}}`,
	` {"choices" : [ { "text" : "x" } ] , "usage" : { } } ` + "\n",
	`{}`,
	`null`,
	`{"nested":[[[{"a":[true,false,null,1,-2.5e+3,"s"]}]]],"choices":[{"text":"t"}]}`,
	`{"ChoicesX":1,"choices":[{"text":"t","textual":1,"deltas":{}}]}`,
	`{"choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"stop","stop_reason":151645}]}`,
	`{"choices":[{"index":0,"text":" end","finish_reason":"stop","stop_reason":"###"}]}`,
	`{"choices":[{"text":"a","finish_reason":"stop"},{"text":"b","finish_reason":"length","stop_reason":7}]}`,
	`{"choices":[{"text":"a","finish_reason":"something_new","stop_reason":{"k":[1]}}]}`,
}

// oddChunks are documents scanChunk leaves to encoding/json.
var oddChunks = []string{
	`{"choices":[{"delta":{"reasoning_content":"a","Reasoning":"b"}}]}`,
	`{"choices":[{"delta":{"reasoning":"a","reasoning":""}}],"usage":{"completion_tokens_details":{"reasoning_tokens":1.5}}}`,
	`{"choices":[],"usage":{"completion_tokens_details":{"Reasoning_Tokens":2}}}`,
	`{"Choices":[{"text":"a"}]}`,
	`{"choices":[{"TEXT":"a"}]}`,
	`{"choices":[{"text":"a","text":"b"}]}`,
	`{"choices":[{"text":"a"}],"choices":[]}`,
	`{"ch\u006fices":[{"text":"a"}]}`,
	`{"choices":[{"text":"a"}],"usage":{"prompt_tokens":1.0}}`,
	`{"usage":{"prompt_tokens":1e2}}`,
	`{"usage":{"completion_tokens":"3"}}`,
	`{"usage":{"completion_tokens":99999999999999999999}}`,
	`{"usage":{"completion_tokens":-9223372036854775808}}`,
	`{"choices":{}}`,
	`{"choices":[1]}`,
	`{"choices":[{"text":5}]}`,
	`{"choices":[{"delta":"x"}]}`,
	`{"choices":[{"text":"a"}],}`,
	`{"choices":[{"text":"a"}]}x`,
	`{"choices":[{"text":"a` + "\x01" + `"}]}`,
	`{"choices":[{"text":"\x"}]}`,
	`{"choices":[{"text":"\u12"}]}`,
	`{"a":01}`,
	`{"a":-}`,
	`{"a":1.}`,
	`{"a":tru}`,
	`[]`,
	`"s"`,
	``,
	`{oops`,
	`{"ſcore":1}`,
	strings.Repeat(`[`, 300) + strings.Repeat(`]`, 300),
}

// decodeBoth runs decodeChunk and the encoding/json reference on one
// document and fails the test when they disagree.
func decodeBoth(t *testing.T, data []byte, chat bool) (usedScanner bool) {
	t.Helper()
	prefix := []byte("prev|")
	var fs, fj Message
	textS, errS := decodeChunk(data, chat, append([]byte(nil), prefix...), &fs)
	textJ, errJ := decodeChunkJSON(data, chat, append([]byte(nil), prefix...), &fj)
	if (errS == nil) != (errJ == nil) || errS != nil && errS.Error() != errJ.Error() {
		t.Fatalf("%q chat=%v: error %v, encoding/json %v", data, chat, errS, errJ)
	}
	if fs != fj || !bytes.Equal(textS, textJ) {
		t.Fatalf("%q chat=%v:\n got %+v %q\nwant %+v %q", data, chat, fs, textS, fj, textJ)
	}
	var f Message
	_, ok := scanChunk(data, chat, nil, &f)
	return ok
}

func TestDecodeChunkMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		name        string
		docs        []string
		wantScanner bool
	}{
		{"real server chunks are scanned", realChunks, true},
		{"unusual documents fall back", oddChunks, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, d := range tt.docs {
				for _, chat := range []bool{false, true} {
					if got := decodeBoth(t, []byte(d), chat); got != tt.wantScanner {
						t.Errorf("%q chat=%v: scanner used %v, want %v", d, chat, got, tt.wantScanner)
					}
				}
			}
		})
	}
}

func TestScanChunkFields(t *testing.T) {
	tests := []struct {
		doc  string
		chat bool
		text string
		want Message
	}{
		{realChunks[0], false, " tok", Message{Output: true}},
		{realChunks[2], false, "", Message{HasPromptTokens: true, PromptTokens: 12, HasOutputTokens: true, OutputTokens: 64}},
		{realChunks[4], true, " Hello", Message{Output: true, Answer: true}},
		{realChunks[4], false, "", Message{Output: true}},
		{realChunks[8], false, "emoji 😀 and lone \ufffd and \ufffd end", Message{Output: true}},
		{realChunks[9], false, "high then bad \ufffdx \ufffdA", Message{Output: true}},
		{realChunks[10], false, "UTF-8 😀 ünï and invalid \ufffd\ufffd bytes", Message{Output: true}},
		{realChunks[12], false, "a", Message{Output: true}},
		{realChunks[16], false, "", Message{HasOutputTokens: true}},
		{realChunks[1], false, "", Message{Output: true, FinishReason: "length"}},
		{realChunks[6], true, "a", Message{Output: true, Answer: true, FinishReason: "stop", HasPromptTokens: true, PromptTokens: 9, HasOutputTokens: true, OutputTokens: 2}},
		// Reasoning deltas (vLLM's reasoning_content, newer servers' reasoning)
		// are reasoning, not answer text; the usage's reasoning token count.
		{`{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}`, true, "", Message{Output: true, Reasoning: true}},
		{`{"choices":[{"index":0,"delta":{"content":null,"reasoning":"so"}}]}`, true, "", Message{Output: true, Reasoning: true}},
		{`{"choices":[{"index":0,"delta":{"content":"","reasoning":""}}]}`, true, "", Message{Output: true}},
		{`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":5}}}`, true, "",
			Message{HasPromptTokens: true, PromptTokens: 3, HasOutputTokens: true, OutputTokens: 9, HasReasoningTokens: true, ReasoningTokens: 5}},
		{realChunks[23], false, "", Message{Output: true, FinishReason: "stop", StopReason: "151645"}},
		{realChunks[24], false, " end", Message{Output: true, FinishReason: "stop", StopReason: `"###"`}},
		{realChunks[25], false, "a", Message{Output: true, FinishReason: "stop"}}, // choice 0's only
		{realChunks[26], false, "a", Message{Output: true, FinishReason: "something_new", StopReason: `{"k":[1]}`}},
	}
	for _, tt := range tests {
		var f Message
		text, ok := scanChunk([]byte(tt.doc), tt.chat, nil, &f)
		if !ok || string(text) != tt.text || f != tt.want {
			t.Errorf("scanChunk(%s, chat=%v) = %q %+v ok=%v, want %q %+v", tt.doc, tt.chat, text, f, ok, tt.text, tt.want)
		}
	}
}

// FuzzDecodeChunk checks that decodeChunk (the scanner with its fallback)
// always agrees with encoding/json.
func FuzzDecodeChunk(f *testing.F) {
	for _, d := range append(append([]string{}, realChunks...), oddChunks...) {
		f.Add([]byte(d), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, chat bool) {
		decodeBoth(t, data, chat)
	})
}

// BenchmarkDecodeChunk compares the scanner with encoding/json on a typical
// completions chunk.
func BenchmarkDecodeChunk(b *testing.B) {
	data := []byte(realChunks[0])
	for _, bc := range []struct {
		name string
		fn   func([]byte, bool, []byte, *Message) ([]byte, error)
	}{{"scanner", decodeChunk}, {"encoding-json", decodeChunkJSON}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			text := make([]byte, 0, 64)
			var f Message
			for b.Loop() {
				text, _ = bc.fn(data, false, text[:0], &f)
			}
		})
	}
}
