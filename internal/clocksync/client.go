package clocksync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Client timing.
const (
	// retryInterval is the pause between attempts to reach a server that
	// is not up yet.
	retryInterval = 100 * time.Millisecond
	// dialTimeout bounds one connection attempt.
	dialTimeout = time.Second
	// attemptTimeout bounds one round trip, the dial included.
	attemptTimeout = 5 * time.Second
	// maxDoneBody is how much of a /done response body is drained.
	maxDoneBody = 512
)

// Measure estimates the offset of the local clock (clock; nil is time.Now)
// to the server at addr (host:port) from samples round trips over one
// keep-alive connection, keeping the one with the smallest RTT. The RTT is
// measured on the monotonic clock; the local wall reading is taken as the
// send time plus RTT/2.
//
// A first, discarded round trip warms the connection up; while it fails
// for want of a server (connection refused, say: worker 0 may start later
// than the others) it is retried every 100ms until ctx ends. A server that
// answers but not with a time fails at once. If ctx ends during sampling,
// the estimate comes from the round trips done so far; Measure fails when
// none succeeded.
func Measure(ctx context.Context, addr string, samples int, clock Clock) (Estimate, error) {
	if samples < 1 {
		return Estimate{}, fmt.Errorf("clocksync: samples must be at least 1, got %d", samples)
	}
	clock = orNow(clock)
	c, err := newClient(addr)
	if err != nil {
		return Estimate{}, err
	}
	defer c.close()
	warm := func(ctx context.Context) error {
		_, err := c.sample(ctx, clock)
		return err
	}
	if err := c.retry(ctx, warm); err != nil {
		return Estimate{}, err
	}
	return c.measure(ctx, samples, clock)
}

// Done tells the server at addr that shard shard has finished its
// after-run measurement. Like Measure, it retries every 100ms until ctx
// ends while no server answers.
func Done(ctx context.Context, addr string, shard int) error {
	if shard < 0 {
		return fmt.Errorf("clocksync: shard must be non-negative, got %d", shard)
	}
	c, err := newClient(addr)
	if err != nil {
		return err
	}
	defer c.close()
	return c.retry(ctx, func(ctx context.Context) error { return c.postDone(ctx, shard) })
}

// client talks to one time server over one keep-alive connection.
type client struct {
	addr string
	http *http.Client
	tr   *http.Transport
}

// newClient returns a client for the server at addr (host:port).
func newClient(addr string) (*client, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("clocksync: bad server address %q: %w", addr, err)
	}
	tr := newTransport()
	return &client{
		addr: addr,
		tr:   tr,
		http: &http.Client{Transport: tr, CheckRedirect: noRedirect},
	}, nil
}

// newTransport returns a keep-alive HTTP/1.1 transport holding at most one
// connection. Proxy is nil: no proxy from the environment may stand
// between the workers, it would only add delay.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: dialTimeout}).DialContext,
		MaxIdleConns:        1,
		MaxIdleConnsPerHost: 1,
		MaxConnsPerHost:     1,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}
}

// noRedirect makes the client return redirects as they are.
func noRedirect(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}

// close drops the client's connection.
func (c *client) close() {
	c.tr.CloseIdleConnections()
}

// url returns the URL of path on the server, with query q (may be nil).
func (c *client) url(path string, q url.Values) string {
	u := url.URL{Scheme: "http", Host: c.addr, Path: path, RawQuery: q.Encode()}
	return u.String()
}

// protocolError is an answer that retrying will not fix: the server is
// there but did not answer as a time server does.
type protocolError struct {
	msg string
}

// Error implements error.
func (e *protocolError) Error() string { return e.msg }

// retry calls attempt until it succeeds, fails with a protocolError, or
// ctx ends, pausing retryInterval between attempts.
func (c *client) retry(ctx context.Context, attempt func(context.Context) error) error {
	var last error // the last failure not caused by ctx ending
	for {
		err := attempt(ctx)
		if err == nil {
			return nil
		}
		if pe := (*protocolError)(nil); errors.As(err, &pe) {
			return fmt.Errorf("clocksync: time server at %s: %w", c.addr, err)
		}
		if ctx.Err() == nil || last == nil {
			last = err
		}
		if ctx.Err() != nil || !sleep(ctx, retryInterval) {
			return fmt.Errorf("clocksync: time server at %s did not answer before the context ended: %w (last attempt: %w)",
				c.addr, ctx.Err(), last)
		}
	}
}

// sleep waits for d, or until ctx ends; it reports whether d went by.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// measure takes n samples and keeps the one with the smallest RTT. It
// stops early if ctx ends.
func (c *client) measure(ctx context.Context, n int, clock Clock) (Estimate, error) {
	var best sample
	var est Estimate
	var last error
	for i := 0; i < n && ctx.Err() == nil; i++ {
		s, err := c.sample(ctx, clock)
		if err != nil {
			last = err
			continue
		}
		if est.Samples == 0 || s.rtt < best.rtt {
			best = s
		}
		est.Samples++
	}
	if est.Samples == 0 {
		if last == nil {
			last = ctx.Err()
		}
		return Estimate{}, fmt.Errorf("clocksync: none of %d round trips to %s succeeded: %w", n, c.addr, last)
	}
	est.Offset = best.offset
	est.Uncertainty = best.rtt / 2
	return est, nil
}

// sample is one round trip's result.
type sample struct {
	offset time.Duration // local minus reference, at the middle of the round trip
	rtt    time.Duration // round-trip time, on the monotonic clock
}

// sample does one GET /time round trip. The monotonic start is read
// before the local wall clock, and the end after the whole body is in, so
// the server's reading falls within [local, local+rtt] and the offset's
// error is at most rtt/2.
func (c *client) sample(ctx context.Context, clock Clock) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url(timePath, nil), nil)
	if err != nil {
		return sample{}, err
	}
	start := time.Now()
	local := clock()
	resp, err := c.http.Do(req)
	if err != nil {
		return sample{}, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTimeBody+1))
	rtt := time.Since(start)
	_ = resp.Body.Close()
	if err != nil {
		return sample{}, err
	}
	ref, err := checkTime(resp, body)
	if err != nil {
		return sample{}, err
	}
	return sample{offset: time.Duration(local.UnixNano()-ref) + rtt/2, rtt: rtt}, nil
}

// checkTime returns the reference time in a /time response with body body.
func checkTime(resp *http.Response, body []byte) (int64, error) {
	if resp.StatusCode != http.StatusOK {
		return 0, &protocolError{fmt.Sprintf("GET %s: %s", timePath, resp.Status)}
	}
	ref, err := parseTime(body)
	if err != nil {
		return 0, &protocolError{fmt.Sprintf("GET %s: %v", timePath, err)}
	}
	return ref, nil
}

// postDone does one POST /done?shard=shard round trip.
func (c *client) postDone(ctx context.Context, shard int) error {
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	q := url.Values{"shard": {strconv.Itoa(shard)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url(donePath, q), nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDoneBody))
	if resp.StatusCode != http.StatusNoContent {
		return &protocolError{fmt.Sprintf("POST %s: %s", donePath, resp.Status)}
	}
	return nil
}
