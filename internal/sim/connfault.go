package sim

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// connFaults injects the connection faults of Config.CloseAfterStream and
// Config.DropEvery, and counts what a client does about them.
type connFaults struct {
	dropped  atomic.Uint64 // requests read and then dropped
	repeated atomic.Uint64 // requests whose X-Request-Id arrived before

	mu   sync.Mutex
	seen map[string]struct{} // X-Request-Ids that arrived
}

// arrived records a generation request's id and reports whether the
// request is to be dropped (Config.DropEvery). Ids are remembered only
// while a connection fault is configured.
func (f *connFaults) arrived(cfg Config, id string, seq uint64) bool {
	if !cfg.CloseAfterStream && cfg.DropEvery <= 0 {
		return false
	}
	if id != "" {
		f.mu.Lock()
		if _, ok := f.seen[id]; ok {
			f.repeated.Add(1)
		} else {
			if f.seen == nil {
				f.seen = map[string]struct{}{}
			}
			f.seen[id] = struct{}{}
		}
		f.mu.Unlock()
	}
	return cfg.DropEvery > 0 && seq%uint64(cfg.DropEvery) == 0
}

// drop ends a request that was read without answering it: its connection
// is closed (the request's bytes were all read, so the close is a FIN, not
// a reset). It reports false when the connection cannot be taken over;
// the request is then served.
func (f *connFaults) drop(w http.ResponseWriter) bool {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return false
	}
	f.dropped.Add(1)
	_ = conn.Close()
	return true
}

// closeLater closes c after delay, as a server that closes every
// connection after its response while advertising keep-alive does.
func (f *connFaults) closeLater(c net.Conn, delay time.Duration) {
	if delay <= 0 {
		_ = c.Close()
		return
	}
	time.AfterFunc(delay, func() { _ = c.Close() })
}
