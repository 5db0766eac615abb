package backend

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"sync"
)

// dialer hands out connections dialled before the run, then dials as
// usual. Pre-dialling keeps TCP connection setup, which a real deployment
// pays once per connection, out of the first wave's TTFT.
type dialer struct {
	d     net.Dialer
	mu    sync.Mutex
	addr  string
	ready []net.Conn
}

// DialContext returns a pre-dialled connection to addr if one is left.
func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	if addr == d.addr && len(d.ready) > 0 {
		c := d.ready[len(d.ready)-1]
		d.ready = d.ready[:len(d.ready)-1]
		d.mu.Unlock()
		return c, nil
	}
	d.mu.Unlock()
	return d.d.DialContext(ctx, network, addr)
}

// close closes the connections nobody used.
func (d *dialer) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.ready {
		_ = c.Close()
	}
	d.ready = nil
}

// Preconnect opens n TCP connections to the target before the run, so the
// first requests reuse them instead of paying for connection setup inside
// their TTFT. It sends no request. Connections the run does not need are
// closed by Close. A dial failure is returned: the server is unreachable.
func (c *Client) Preconnect(ctx context.Context, n int) error {
	u, err := url.Parse(c.cfg.URL)
	if err != nil {
		return err
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	conns := make([]net.Conn, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			conns[i], errs[i] = c.dial.d.DialContext(ctx, "tcp", addr)
		}()
	}
	wg.Wait()
	c.dial.mu.Lock()
	defer c.dial.mu.Unlock()
	c.dial.addr = addr
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
