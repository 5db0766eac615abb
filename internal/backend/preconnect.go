package backend

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/vbench/vbench/internal/ringnet"
	"github.com/vbench/vbench/internal/rxtime"
)

// preconnectMaxAge is how long pre-dialled connections are handed out.
// An idle connection may be closed by a proxy or load balancer, and Go
// does not retry a request on a new connection, so a connection this old
// is closed instead of used.
const preconnectMaxAge = 3 * time.Second

// dialer hands out connections dialled before the run, then dials as
// usual. Pre-dialling keeps TCP connection setup, which a real deployment
// pays once per connection, out of the first wave's TTFT.
type dialer struct {
	d     net.Dialer
	now   func() time.Time // time.Now if nil; tests set it
	mu    sync.Mutex
	addr  string
	ready []net.Conn
	at    time.Time // when ready was dialled
}

func (d *dialer) clock() time.Time {
	if d.now != nil {
		return d.now()
	}
	return time.Now()
}

// DialContext returns a pre-dialled connection to addr if one is left and
// younger than preconnectMaxAge (see take), else dials one.
func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if c := d.take(addr); c != nil {
		return c, nil
	}
	return d.dial(ctx, network, addr)
}

// take returns a pre-dialled connection to addr, or nil when none is left;
// once they are older than preconnectMaxAge it closes them all. The server
// may have closed or reset one meanwhile (a server at its connection limit
// resets the surplus at once): each gets one non-blocking look, outside
// the lock, before it carries a request.
func (d *dialer) take(addr string) net.Conn {
	for {
		d.mu.Lock()
		if len(d.ready) > 0 && d.clock().Sub(d.at) > preconnectMaxAge {
			d.closeLocked()
		}
		if addr != d.addr || len(d.ready) == 0 {
			d.mu.Unlock()
			return nil
		}
		c := d.ready[len(d.ready)-1]
		d.ready = d.ready[:len(d.ready)-1]
		d.mu.Unlock()
		if !newH1Peek(c).gone() {
			return c
		}
		_ = c.Close()
	}
}

// dial dials a new connection whose reads carry kernel receive timestamps
// where the platform has them (see package rxtime).
func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return rxtime.Wrap(c), nil
}

// close closes the connections nobody used.
func (d *dialer) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closeLocked()
}

// expire closes the connections nobody used if they are still those
// dialled at at.
func (d *dialer) expire(at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.at.Equal(at) {
		d.closeLocked()
	}
}

func (d *dialer) closeLocked() {
	for _, c := range d.ready {
		_ = c.Close()
	}
	d.ready = nil
}

// Preconnect opens n TCP connections to the target before the run, so the
// first requests reuse them instead of paying for connection setup inside
// their TTFT. It sends no request. Callers size n to the first wave of
// requests (at most the concurrency, and no more than the requests the
// rate sends in the first moments): the connections are handed out only
// for preconnectMaxAge (3 s) after they are dialled, because a proxy or
// load balancer may close idle connections; later dials open new ones.
// Connections not used by then are closed, as are any left at Close. A
// dial failure is returned: the server is unreachable.
func (c *Client) Preconnect(ctx context.Context, n int) error {
	u, err := url.Parse(c.cfg.URL)
	if err != nil {
		return err
	}
	addr := DialAddr(u)
	at := c.dial.clock() // the oldest connection's age bounds them all
	conns := make([]net.Conn, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			conns[i], errs[i] = c.dial.dial(ctx, "tcp", addr)
			if errs[i] == nil && c.h1 != nil {
				// The lean client's connections are read on the ring
				// (package ringnet): adopt them now, not in the run.
				if rc := ringnet.Adopt(conns[i]); rc != nil {
					conns[i] = rc
				}
			}
		}()
	}
	wg.Wait()
	c.dial.mu.Lock()
	defer c.dial.mu.Unlock()
	c.dial.closeLocked()
	c.dial.addr = addr
	c.dial.at = at
	time.AfterFunc(preconnectMaxAge, func() { c.dial.expire(at) })
	var first error
	for i, conn := range conns {
		if errs[i] != nil {
			first = errs[i]
			continue
		}
		c.dial.ready = append(c.dial.ready, conn)
	}
	if first != nil {
		return fmt.Errorf("connecting to %s: %w", addr, first)
	}
	return nil
}

// DialAddr is the host:port a request to u connects to: u's port, else the
// scheme's (443 for https, 80 otherwise).
func DialAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}
