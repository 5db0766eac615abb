package backend

import (
	"bytes"
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

func TestReadSSEStop(t *testing.T) {
	r := &chunkReader{chunks: []string{"data: 1\n\ndata: 2\n\ndata: 3\n\n"}}
	n := 0
	_ = readSSE(r, func() time.Duration { return 0 }, func([]byte, time.Duration) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("callback ran %d times after asking to stop at 2", n)
	}
}

// FuzzReadSSE checks that any byte stream, split anywhere, frames without
// panicking and that splitting never changes the events of well-formed
// streams made of complete, blank-line-terminated messages.
func FuzzReadSSE(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\ndata: [DONE]\n\n"), uint8(3))
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n: c\n\n"), uint8(1))
	f.Add([]byte("data: {\"a\":1}"), uint8(7))
	f.Fuzz(func(t *testing.T, body []byte, split uint8) {
		step := int(split%16) + 1
		var chunks []string
		for b := body; len(b) > 0; {
			n := min(step, len(b))
			chunks = append(chunks, string(b[:n]))
			b = b[n:]
		}
		got := collect(t, chunks...)
		whole := collect(t, string(body))
		if bytes.Contains(body, []byte("{")) || bytes.Contains(body, []byte("[DONE]")) {
			return // early delivery of complete JSON may legitimately differ by split
		}
		if len(got) != len(whole) {
			t.Fatalf("split %d gave %d events, whole body %d", step, len(got), len(whole))
		}
		for i := range got {
			if got[i].data != whole[i].data {
				t.Fatalf("event %d: split %q vs whole %q", i, got[i].data, whole[i].data)
			}
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
