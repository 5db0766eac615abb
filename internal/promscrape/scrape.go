package promscrape

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout bounds one scrape, from connecting to reading the body.
const DefaultTimeout = 10 * time.Second

// ErrNotAvailable wraps every reason a scrape gave no snapshot: the server
// has no /metrics (404 or another status), refused the connection, timed
// out or answered something that is not an exposition. A run goes on
// without the server's statistics.
var ErrNotAvailable = errors.New("server /metrics not available")

// Scraper reads one server's /metrics.
type Scraper struct {
	url     string
	shown   string // url for messages: its password, if any, redacted
	client  *http.Client
	timeout time.Duration
}

// New returns a scraper of base+"/metrics" (a trailing slash of base is
// dropped) through rt, the benchmark's transport (its TLS settings); nil
// uses http.DefaultTransport. Requests carry no headers of the benchmark
// (no API key, no --header), as vLLM's do not, so that following a
// redirect, as net/http does, sends no secret elsewhere (a password in
// base becomes basic authentication of the first request only). Messages
// show base without its password. timeout ≤ 0 means DefaultTimeout.
func New(base string, rt http.RoundTripper, timeout time.Duration) *Scraper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	u := strings.TrimSuffix(base, "/") + "/metrics"
	shown := u
	if p, err := url.Parse(u); err == nil {
		shown = p.Redacted()
	} else if strings.Contains(u, "@") {
		shown = "<redacted>"
	}
	return &Scraper{
		url:     u,
		shown:   shown,
		client:  &http.Client{Transport: rt},
		timeout: timeout,
	}
}

// URL returns the scraped URL for messages: its password, if any,
// redacted.
func (s *Scraper) URL() string { return s.shown }

// Scrape reads /metrics once. Every failure wraps ErrNotAvailable.
func (s *Scraper) Scrape(ctx context.Context) (*Snapshot, error) {
	var snap *Snapshot
	err := s.get(ctx, func(body io.Reader) (err error) {
		snap, err = Parse(body)
		return err
	})
	return snap, err
}

// get GETs /metrics within the timeout and hands a 200 response's body to
// read. Every failure, read's included, wraps ErrNotAvailable.
func (s *Scraper) get(ctx context.Context, read func(body io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may hold a password
		}
		return fmt.Errorf("%w: %s: %w", ErrNotAvailable, s.shown, err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotAvailable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: GET %s: %s", ErrNotAvailable, s.shown, resp.Status)
	}
	if err := read(resp.Body); err != nil {
		return fmt.Errorf("%w: GET %s: %w", ErrNotAvailable, s.shown, err)
	}
	return nil
}
