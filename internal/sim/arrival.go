package sim

import (
	"context"
	"net"
	"time"

	"github.com/vbench/vbench/internal/rxtime"
)

// A simulated server's latencies count from the moment a request arrived,
// as a real server's do, not from when its handler got to run: under load
// the handler may start milliseconds later, and that delay belongs to the
// simulator, not to the latency model it serves. The listener of [Start]
// reads its connections with kernel receive timestamps (package rxtime, on
// Linux); elsewhere, and for a handler served by another server, the
// handler's start time stands in. A request pipelined behind another on
// the same connection counts from its own arrival too, so its events show
// as late by the time it waited.

// rxConnKey is the context key under which Start's server stores the
// connection a request came in on.
type rxConnKey struct{}

// connContext is the http.Server ConnContext of Start's server.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if rc := rxtime.Of(c); rc != nil {
		return context.WithValue(ctx, rxConnKey{}, rc)
	}
	return ctx
}

// arrival returns when the request whose body was just read arrived: the
// kernel's receive time of its last byte, on the monotonic clock of now (a
// reading taken after the body was read). It returns false when that is
// unknown.
func arrival(ctx context.Context, now time.Time) (time.Time, bool) {
	rc, _ := ctx.Value(rxConnKey{}).(*rxtime.Conn)
	age, ok := rc.Age(now)
	if !ok {
		return time.Time{}, false
	}
	// Subtracting the age keeps now's monotonic reading.
	return now.Add(-age), true
}
