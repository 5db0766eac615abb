package backend

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
)

// W3C Trace Context (https://www.w3.org/TR/trace-context/): with
// Config.TraceContext, every request prepared with ids (the timed
// requests) carries
//
//	traceparent: 00-<trace-id: 32 hex>-<parent-id: 16 hex>-01
//
// version 00, flags 01 (sampled), so that a server exporting OpenTelemetry
// spans continues the client's trace and its spans can be joined to the
// request's record (record.Record.TraceID). The trace id is one per
// request; the parent id (the client's span id) is one per attempt: the
// lean HTTP/1.1 client re-sends a request once on a new connection when
// its keep-alive connection turns out stale, and that second attempt has
// a parent id of its own. Ids come from crypto/rand, not from the
// scenario's seed: two runs of one scenario must not send the same trace
// ids to one collector. All of it is rendered by Prepare, before the run:
// the send path copies bytes, as it does for x-request-id.

const (
	// traceHeaderKey is the header's name as both clients write it (HTTP
	// header names are case-insensitive; net/http canonicalises its key).
	traceHeaderKey = "traceparent"
	// traceValueLen is the length of a traceparent value:
	// "00-" + 32 + "-" + 16 + "-01".
	traceValueLen = 3 + 32 + 1 + 16 + 3
	// traceLineLen is one rendered header line: "traceparent: " value CRLF.
	traceLineLen = len(traceHeaderKey) + 2 + traceValueLen + 2
	// traceAttempts is how many attempts of one request get their own
	// parent id: the first and the lean client's one stale-connection retry.
	traceAttempts = 2
	// traceRandomBytes are the random bytes of one request: its trace id
	// and one parent id per attempt.
	traceRandomBytes = 16 + 8*traceAttempts
)

// traceLines holds the rendered traceparent header lines of a run's
// requests: traceAttempts lines per request, back to back, in one buffer,
// and the same bytes as one string that the trace ids and header values
// are sliced from (no allocation per request).
type traceLines struct {
	buf []byte
	str string
}

// newTraceLines renders the traceparent lines of n requests with random
// ids read from rnd (crypto/rand's Reader in Prepare). An all-zero id,
// which the W3C format forbids, is made valid by setting its last bit.
func newTraceLines(n int, rnd io.Reader) (traceLines, error) {
	raw := make([]byte, n*traceRandomBytes)
	if _, err := io.ReadFull(rnd, raw); err != nil {
		return traceLines{}, fmt.Errorf("trace context: reading random ids: %w", err)
	}
	buf := make([]byte, 0, n*traceAttempts*traceLineLen)
	for i := range n {
		r := raw[i*traceRandomBytes : (i+1)*traceRandomBytes]
		tid := nonZero(r[:16])
		for a := range traceAttempts {
			buf = append(buf, traceHeaderKey+": 00-"...)
			buf = hex.AppendEncode(buf, tid)
			buf = append(buf, '-')
			buf = hex.AppendEncode(buf, nonZero(r[16+8*a:16+8*(a+1)]))
			buf = append(buf, "-01\r\n"...)
		}
	}
	return traceLines{buf: buf, str: string(buf)}, nil
}

// nonZero returns id, with its last bit set when it is all zeros.
func nonZero(id []byte) []byte {
	for _, b := range id {
		if b != 0 {
			return id
		}
	}
	id[len(id)-1] = 1
	return id
}

// line returns request i's header line for the given attempt (0 or 1),
// CRLF included.
func (t traceLines) line(i, attempt int) []byte {
	off := (i*traceAttempts + attempt) * traceLineLen
	return t.buf[off : off+traceLineLen : off+traceLineLen]
}

// value returns request i's first-attempt traceparent value.
func (t traceLines) value(i int) string {
	off := i*traceAttempts*traceLineLen + len(traceHeaderKey) + 2
	return t.str[off : off+traceValueLen]
}

// traceID returns request i's trace id (32 hex digits).
func (t traceLines) traceID(i int) string {
	off := i*traceAttempts*traceLineLen + len(traceHeaderKey) + 2 + 3
	return t.str[off : off+32]
}

// randomReader is where trace ids come from; tests replace it.
var randomReader io.Reader = rand.Reader
