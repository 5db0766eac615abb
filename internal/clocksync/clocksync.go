// Package clocksync measures the offsets between the wall clocks of the
// workers of a sharded benchmark run, by Cristian's method.
//
// Worker 0 serves its wall clock over HTTP (Serve). Every other worker asks
// it for the time a number of times over one keep-alive connection
// (Measure) and keeps the round trip with the smallest round-trip time
// (RTT). The reference reading was taken somewhere inside that round trip,
// so pairing it with the local reading at the middle of the round trip
// leaves an error of at most half the RTT, which Measure reports as the
// Estimate's Uncertainty. On loopback that is well below a millisecond.
//
// The wire protocol is plain HTTP/1.1:
//
//	GET  /time          200, body: the reference wall clock in Unix nanoseconds, in decimal
//	POST /done?shard=I  204: shard I has finished (see Server.WaitDone)
//
// It is a leaf package: it imports only the standard library.
package clocksync

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Clock reads a wall clock. time.Now is the real one; tests shift it.
type Clock func() time.Time

// Estimate is one offset measurement.
type Estimate struct {
	// Offset is the local clock minus the reference clock (positive: the
	// local clock is ahead).
	Offset time.Duration
	// Uncertainty bounds the error of Offset: half the round-trip time of
	// the sample used.
	Uncertainty time.Duration
	// Samples is the number of round trips that succeeded.
	Samples int
}

// maxTimeBody is the longest /time body accepted: a sign and 19 digits.
const maxTimeBody = 20

// orNow returns clock, or time.Now when clock is nil.
func orNow(clock Clock) Clock {
	if clock == nil {
		return time.Now
	}
	return clock
}

// appendTime appends the wire form of t, its Unix nanoseconds in decimal.
func appendTime(b []byte, t time.Time) []byte {
	return strconv.AppendInt(b, t.UnixNano(), 10)
}

// parseTime parses the body of a /time response: an optional '-' and 1 to
// 19 decimal digits, nothing else (no '+', no spaces), within int64.
func parseTime(body []byte) (int64, error) {
	if len(body) == 0 {
		return 0, errors.New("empty time body")
	}
	if len(body) > maxTimeBody {
		return 0, fmt.Errorf("time body too long (over %d bytes)", maxTimeBody)
	}
	digits := body
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return 0, fmt.Errorf("bad time body %q: no digits", body)
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad time body %q: not a decimal integer", body)
		}
	}
	ns, err := strconv.ParseInt(string(body), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad time body %q: out of range", body)
	}
	return ns, nil
}
