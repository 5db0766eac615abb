package backend

import (
	"io"
	"strings"
	"testing"
	"time"
)

// chunkReader returns its chunks one Read at a time, and advances a fake
// clock by 1ms per Read so each message's timestamp names its chunk.
type chunkReader struct {
	chunks []string
	clock  time.Duration
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	c.clock += time.Millisecond
	n := copy(p, c.chunks[0])
	if n < len(c.chunks[0]) {
		c.chunks[0] = c.chunks[0][n:]
	} else {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

type event struct {
	data string
	at   time.Duration
}

func collect(t *testing.T, chunks ...string) []event {
	t.Helper()
	r := &chunkReader{chunks: chunks}
	var got []event
	err := readSSE(r, func() time.Duration { return r.clock }, func(data []byte, at time.Duration) bool {
		got = append(got, event{string(data), at})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestReadSSE(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name   string
		chunks []string
		want   []event
	}{
		{"one chunk, two events", []string{"data: {\"a\":1}\n\ndata: [DONE]\n\n"},
			[]event{{`{"a":1}`, ms}, {"[DONE]", ms}}},
		{"event split mid-JSON waits for the rest", []string{"data: {\"a\"", ":1}\n\n"},
			[]event{{`{"a":1}`, 2 * ms}}},
		{"complete JSON before its blank line is delivered early", []string{"data: {\"a\":1}", "\n\ndata: {\"b\":2}\n\n"},
			[]event{{`{"a":1}`, ms}, {`{"b":2}`, 2 * ms}}},
		{"blank line split across chunks", []string{"data: {\"a\":1}\n", "\ndata: x\n\n"},
			[]event{{`{"a":1}`, ms}, {"x", 2 * ms}}},
		{"CRLF framing", []string{"data: {\"a\":1}\r\n\r\ndata: [DONE]\r\n\r\n"},
			[]event{{`{"a":1}`, ms}, {"[DONE]", ms}}},
		{"comments and other fields skipped", []string{": ping\n\nevent: x\nid: 3\ndata: {}\n\n"},
			[]event{{`{}`, ms}}},
		{"multi-line data joined", []string{"data: a\ndata: b\n\n"},
			[]event{{"a\nb", ms}}},
		{"data without a space", []string{"data:{\"a\":1}\n\n"},
			[]event{{`{"a":1}`, ms}}},
		{"trailing message without blank line at EOF", []string{"data: [DONE]"},
			[]event{{"[DONE]", ms}}},
		{"partial non-JSON tail at EOF", []string{"data: abc"},
			[]event{{"abc", ms}}},
		{"empty body", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := collect(t, tt.chunks...)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d events %+v, want %d %+v", len(got), got, len(tt.want), tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("event %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestReadSSEHugeEvents(t *testing.T) {
	// Events of 1 MB and 3 MB arriving in 16 KB reads, as a slow network
	// would deliver them.
	for _, size := range []int{1 << 20, 3 << 20} {
		big := `{"t":"` + strings.Repeat("x", size) + `"}`
		body := "data: {\"a\":1}\n\ndata: " + big + "\n\ndata: [DONE]\n\n"
		var chunks []string
		for len(body) > 0 {
			n := min(16<<10, len(body))
			chunks = append(chunks, body[:n])
			body = body[n:]
		}
		r := &chunkReader{chunks: chunks}
		var got []event
		if err := readSSE(r, func() time.Duration { return r.clock }, func(data []byte, at time.Duration) bool {
			got = append(got, event{string(data), at})
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[1].data != big || got[2].data != "[DONE]" {
			t.Fatalf("size %d: got %d events", size, len(got))
		}
		if got[0].at != time.Millisecond || got[2].at != r.clock {
			t.Errorf("size %d: events at %v and %v, want 1ms and %v (the reads that completed them)", size, got[0].at, got[2].at, r.clock)
		}
	}
}

// A buffer grown for a huge event is not pooled: the next stream would
// hold it for its whole life, and over a long run every concurrent stream
// would come to hold one.
func TestReleaseDropsGrownBuffer(t *testing.T) {
	var s sseReader
	s.init()
	for len(s.buf) < 2<<20 {
		s.start = 0
		s.end = s.makeRoomFor(len(s.buf))
	}
	s.release()
	for range 8 {
		s.init()
		c := cap(s.buf)
		s.release()
		if c > 64<<10 {
			t.Fatalf("a stream started with a pooled %d-byte buffer, want at most 64 KiB", c)
		}
	}
}

func TestReadSSEStop(t *testing.T) {
	r := &chunkReader{chunks: []string{"data: 1\n\ndata: 2\n\ndata: 3\n\n"}}
	n := 0
	_ = readSSE(r, func() time.Duration { return 0 }, func([]byte, time.Duration) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("callback ran %d times after asking to stop at 2", n)
	}
}

// realStreams are SSE bodies as OpenAI-compatible servers send them.
var realStreams = []string{
	// vLLM chat completions with usage (stream_options.include_usage).
	"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764835200,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764835200,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" Hello\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764835200,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"}\\n\\n[DONE]\"},\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}]}\n\n" +
		"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764835200,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"total_tokens\":14,\"completion_tokens\":2}}\n\n" +
		"data: [DONE]\n\n",
	// Legacy completions, CRLF line ends, a keep-alive comment.
	"data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" tok\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}]}\r\n\r\n" +
		": keep-alive\r\n\r\n" +
		"data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\"\",\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}]}\r\n\r\n" +
		"data: [DONE]\r\n\r\n",
	// No space after "data:", event and id fields, [DONE] without its blank line.
	"event: message\nid: 1\ndata:{\"choices\":[{\"delta\":{\"reasoning_content\":\"think\"}}]}\n\n" +
		"data:{\"choices\":[{\"delta\":{\"content\":\"a\\u00e9\\u2028\"}}]}\n\ndata:[DONE]",
	// JSON over two data lines, then an error event.
	"data: {\"choices\":\ndata: [{\"text\":\"x\"}]}\n\nevent: error\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n",
}

// FuzzReadSSE feeds any byte stream, split into reads of fuzzed sizes, to
// readSSE and requires exactly the events, at exactly the times, that the
// independent reference framer (refSSE) gives for the same reads.
func FuzzReadSSE(f *testing.F) {
	for i, s := range realStreams {
		f.Add([]byte(s), []byte{byte(i*7 + 1), 3, 0, 200})
		f.Add([]byte(s), []byte{})
	}
	f.Add([]byte("data: {\"a\":1}\n\ndata: [DONE]\n\n"), []byte{3})
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n: c\n\n"), []byte{1})
	f.Add([]byte("data: {\"a\":1}"), []byte{7})
	f.Add([]byte("data: {\"a\":1}\u00a0\r\ndata: x\n\n"), []byte{5, 1})
	f.Fuzz(func(t *testing.T, body, splits []byte) {
		if len(body) > maxFuzzBody {
			return // the reference rescans a pending message on every read
		}
		rr := &recordingReader{chunkReader: chunkReader{chunks: splitReads(body, splits)}}
		var got []event
		if err := readSSE(rr, func() time.Duration { return rr.clock }, func(data []byte, at time.Duration) bool {
			got = append(got, event{string(data), at})
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if d := sameEvents(got, refSSE(rr.reads, rr.clock)); d != "" {
			t.Fatalf("body %q, reads %+v: %s", body, rr.reads, d)
		}
	})
}

func BenchmarkReadSSE(b *testing.B) {
	ev := "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" tok\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}]}\n\n"
	body := strings.Repeat(ev, 1000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		_ = readSSE(strings.NewReader(body), func() time.Duration { return 0 }, func([]byte, time.Duration) bool { n++; return true })
		if n != 1000 {
			b.Fatal(n)
		}
	}
	b.ReportMetric(float64(1000*b.N)/b.Elapsed().Seconds(), "events/s")
}
