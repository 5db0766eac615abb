package backend

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// readSSEReference is readSSE before mayBeComplete: it tests every pending
// partial message with messageData and completeData. The fuzz test below
// checks that the pre-test changes no event and no timestamp.
func readSSEReference(r io.Reader, now func() time.Duration, fn func(data []byte, t time.Duration) bool) error {
	s := sseReader{buf: make([]byte, minSSEBuffer)}
	var joined []byte
	for {
		if s.end == len(s.buf) {
			s.makeRoom()
		}
		n, err := r.Read(s.buf[s.end:])
		t := now()
		s.end += n
		for {
			i := bytes.IndexByte(s.buf[s.scan:s.end], '\n')
			if i < 0 {
				s.scan = s.end
				break
			}
			nl := s.scan + i
			line := s.buf[s.lineStart:nl]
			s.scan, s.lineStart = nl+1, nl+1
			if len(bytes.TrimSuffix(line, []byte{'\r'})) != 0 {
				continue
			}
			msg := s.buf[s.start : nl+1]
			s.start = s.scan
			if s.early {
				s.early = false
				continue
			}
			if data := messageData(msg, &joined); data != nil && !fn(data, t) {
				return nil
			}
		}
		if !s.early && s.start < s.end {
			pending := s.buf[s.start:s.end]
			if data := messageData(pending, &joined); data != nil && completeData(data) {
				s.early = true
				if !fn(data, t) {
					return nil
				}
			}
		}
		if err == io.EOF {
			if !s.early && s.start < s.end {
				if data := messageData(s.buf[s.start:s.end], &joined); data != nil {
					fn(data, t)
				}
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// FuzzReadSSEMatchesReference feeds the same byte stream, split the same
// way, to readSSE and readSSEReference and requires identical events at
// identical times.
func FuzzReadSSEMatchesReference(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\ndata: [DONE]\n\n"), uint8(3))
	f.Add([]byte("data: {\"a\":1}\nid: 5\n"), uint8(2))
	f.Add([]byte("data: {}\ndata: \n"), uint8(1))
	f.Add([]byte("data: {\"a\":1}\u00a0\r"), uint8(5))
	f.Add([]byte("data: [DONE] \r\n\r\n: c\n\n"), uint8(4))
	f.Add([]byte("data:{\"x\":\"}\"}\n\n"), uint8(9))
	f.Fuzz(func(t *testing.T, body []byte, split uint8) {
		if len(body) > minSSEBuffer/2 {
			return // keep read boundaries independent of the buffer size
		}
		step := int(split%16) + 1
		var chunks []string
		for b := body; len(b) > 0; {
			n := min(step, len(b))
			chunks = append(chunks, string(b[:n]))
			b = b[n:]
		}
		run := func(read func(io.Reader, func() time.Duration, func([]byte, time.Duration) bool) error) []event {
			r := &chunkReader{chunks: append([]string(nil), chunks...)}
			var got []event
			if err := read(r, func() time.Duration { return r.clock }, func(data []byte, at time.Duration) bool {
				got = append(got, event{string(data), at})
				return true
			}); err != nil {
				t.Fatal(err)
			}
			return got
		}
		got, want := run(readSSE), run(readSSEReference)
		if len(got) != len(want) {
			t.Fatalf("%d events %+v, reference %d %+v", len(got), got, len(want), want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("event %d = %+v, reference %+v", i, got[i], want[i])
			}
		}
	})
}
