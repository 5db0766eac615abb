package backend

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
	"unicode/utf8"
)

// minSSEBuffer is the initial read buffer. It grows (doubling) when one SSE
// message does not fit, so 1 MB events cost a few reallocations, not a
// collapse in throughput. Buffers are recycled through ssePool, so a run
// allocates about one per concurrent stream, not one per request.
const minSSEBuffer = 4 << 10

// maxPooledSSEBuffer is the largest buffer kept for reuse; larger ones (grown
// for huge events) are left to the garbage collector. It is small on
// purpose: a pooled buffer goes to whichever stream asks next, so each
// megabyte buffer kept would end up held by an ordinary stream, and a long
// run with occasional huge events would come to hold one per concurrent
// stream (the soak test saw 100–160 MB at 128 streams with a 4 MiB cap).
const maxPooledSSEBuffer = 64 << 10

// ssePool holds *[]byte read buffers of at least minSSEBuffer bytes.
var ssePool = sync.Pool{New: func() any {
	b := make([]byte, minSSEBuffer)
	return &b
}}

// sseReader frames a Server-Sent Events body into messages and stamps each
// message with the time the read that completed it returned. It is fed
// incrementally: the caller reads into buf[end:] (calling makeRoom first
// when the buffer is full) and calls advance with the byte count and the
// read's time, then finish at the end of the body. readSSE drives it from
// an io.Reader; the lean HTTP/1.1 client (h1.go) reads the connection into
// buf itself and de-chunks in place before calling advance.
//
// A message ends at a blank line ("\n\n" or "\r\n\r\n"). Like vLLM's client,
// a trailing partial message that starts with "data:" and is already a
// complete JSON document (or [DONE]) is delivered as soon as it arrives
// instead of waiting for its blank line; the blank line that follows then
// closes an empty message, which is skipped.
type sseReader struct {
	buf       []byte
	start     int // first byte of the current (incomplete) message
	scan      int // where to resume looking for a line end
	end       int // end of valid data in buf
	lineStart int // start of the current line
	early     bool

	joined []byte  // multi-line data scratch
	pooled *[]byte // the ssePool entry buf came from
}

// readSSE reads r to EOF, calling fn with the data payload of every message
// and the time it was received. A message's data is the value of its
// "data:" lines (joined by "\n" when there are several); comment lines
// (starting with ':') and other fields are skipped. fn must not retain data.
// fn returns false to stop reading. The returned error is the read error,
// nil at EOF.
func readSSE(r io.Reader, now func() time.Duration, fn func(data []byte, t time.Duration) bool) error {
	var s sseReader
	s.init()
	defer s.release()
	for {
		if s.end == len(s.buf) {
			s.makeRoom()
		}
		n, err := r.Read(s.buf[s.end:])
		t := now()
		if !s.advance(n, t, fn) {
			return nil
		}
		if err == io.EOF {
			s.finish(t, fn)
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readWhole reads r to EOF and calls fn once with the whole body and the
// time of the last read that returned bytes (the time of the final read
// when there were none): a non-streaming response is one message, received
// when its last byte arrived. The body is read into an ssePool buffer, so
// fn must not retain it. The returned error is the read error, nil at EOF.
func readWhole(r io.Reader, now func() time.Duration, fn func(data []byte, t time.Duration) bool) error {
	var s sseReader
	s.init()
	defer s.release()
	var t time.Duration
	for {
		if s.end == len(s.buf) {
			s.makeRoom()
		}
		n, err := r.Read(s.buf[s.end:])
		if n > 0 || err != nil && s.end == 0 {
			t = now()
		}
		s.end += n
		if err == io.EOF {
			fn(s.buf[:s.end], t)
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// init readies s with a buffer from ssePool; release returns it.
func (s *sseReader) init() {
	pb := ssePool.Get().(*[]byte)
	*s = sseReader{buf: *pb, pooled: pb}
}

// release returns the buffer to ssePool unless it grew too large. The
// reader must not be used afterwards.
func (s *sseReader) release() {
	if s.pooled != nil && cap(s.buf) <= maxPooledSSEBuffer {
		*s.pooled = s.buf[:cap(s.buf)]
		ssePool.Put(s.pooled)
	}
	s.pooled, s.buf = nil, nil
}

// advance frames the n bytes just placed at buf[end:end+n], received at t
// (the time the read that brought them returned): it delivers every message
// they complete to fn, then a complete trailing data message early. It
// returns false when fn asked to stop. n may be 0 (a read that returned no
// data). fn must not retain data.
func (s *sseReader) advance(n int, t time.Duration, fn func(data []byte, t time.Duration) bool) bool {
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
		if data := messageData(msg, &s.joined); data != nil && !fn(data, t) {
			return false
		}
	}
	if !s.early && s.start < s.end && s.mayBeComplete() {
		pending := s.buf[s.start:s.end]
		if data := messageData(pending, &s.joined); data != nil && completeData(data) {
			s.early = true
			if !fn(data, t) {
				return false
			}
		}
	}
	return true
}

// finish delivers the trailing partial message at the end of the body
// (received at t), unless it was already delivered early.
func (s *sseReader) finish(t time.Duration, fn func(data []byte, t time.Duration) bool) {
	if !s.early && s.start < s.end {
		if data := messageData(s.buf[s.start:s.end], &s.joined); data != nil {
			fn(data, t)
		}
	}
}

// makeRoom frees the consumed prefix of the buffer, or doubles the buffer
// when one message fills it.
func (s *sseReader) makeRoom() {
	s.end = s.makeRoomFor(s.end)
}

// makeRoomFor is makeRoom for a buffer holding used bytes, of which those
// past end are not framed yet (the HTTP/1.1 client's undecoded chunk
// framing); it returns the new used. The consumed prefix is dropped if
// there is one, else the buffer doubles.
func (s *sseReader) makeRoomFor(used int) int {
	if s.start > 0 {
		n := copy(s.buf, s.buf[s.start:used])
		s.scan -= s.start
		s.lineStart -= s.start
		s.end -= s.start
		s.start = 0
		if n < len(s.buf) {
			return n
		}
		used = n
	}
	nb := make([]byte, 2*len(s.buf))
	copy(nb, s.buf[:used])
	s.buf = nb
	return used
}

// mayBeComplete is a cheap, exact pre-test for completeData on the pending
// partial message: when its unterminated last line is a data line whose
// last byte is ASCII, not white space, and neither '}' nor ']', the data
// cannot be complete JSON or [DONE]. It keeps the parts of a large event
// from being rescanned on every read.
func (s *sseReader) mayBeComplete() bool {
	line := s.buf[s.lineStart:s.end]
	if len(line) == 0 || !bytes.HasPrefix(line, []byte("data:")) {
		return true
	}
	switch c := line[len(line)-1]; {
	case c >= utf8.RuneSelf, c == '}', c == ']':
		return true
	case c == ' ', c == '\t', c == '\r', c == '\v', c == '\f', c == ':':
		return true // white space (or an empty value) is trimmed: look closer
	}
	return false
}

// completeData reports whether a partial message's data is already whole:
// [DONE] or a complete JSON document.
func completeData(data []byte) bool {
	d := bytes.TrimSpace(data)
	if len(d) == 0 {
		return false
	}
	if bytes.Equal(d, doneMarker) {
		return true
	}
	return d[len(d)-1] == '}' && json.Valid(d)
}

var doneMarker = []byte("[DONE]")

// messageData returns the data payload of one SSE message, or nil when it
// has no data line. With a single data line it returns a subslice of msg;
// with several it joins them into *scratch.
func messageData(msg []byte, scratch *[]byte) []byte {
	var data []byte
	count := 0
	for len(msg) > 0 {
		var line []byte
		if i := bytes.IndexByte(msg, '\n'); i >= 0 {
			line, msg = msg[:i], msg[i+1:]
		} else {
			line, msg = msg, nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if !bytes.HasPrefix(line, []byte("data:")) {
			continue // comment (":..."), blank, or another field
		}
		v := line[len("data:"):]
		if len(v) > 0 && v[0] == ' ' {
			v = v[1:]
		}
		switch count {
		case 0:
			data = v
		case 1:
			*scratch = append(append(append((*scratch)[:0], data...), '\n'), v...)
			data = *scratch
		default:
			*scratch = append(append(*scratch, '\n'), v...)
			data = *scratch
		}
		count++
	}
	if count > 0 && data == nil {
		data = []byte{}
	}
	return data
}
