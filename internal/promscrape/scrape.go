package promscrape

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
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
	client  *http.Client
	timeout time.Duration
}

// New returns a scraper of base+"/metrics" (a trailing slash of base is
// dropped) through rt, the benchmark's transport (its TLS settings); nil
// uses http.DefaultTransport. Requests carry no headers of the benchmark
// (no API key, no --header), as vLLM's do not. timeout ≤ 0 means
// DefaultTimeout.
func New(base string, rt http.RoundTripper, timeout time.Duration) *Scraper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Scraper{
		url:     strings.TrimSuffix(base, "/") + "/metrics",
		client:  &http.Client{Transport: rt},
		timeout: timeout,
	}
}

// URL returns the scraped URL.
func (s *Scraper) URL() string { return s.url }

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
		return fmt.Errorf("%w: %s: %w", ErrNotAvailable, s.url, err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotAvailable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: GET %s: %s", ErrNotAvailable, s.url, resp.Status)
	}
	if err := read(resp.Body); err != nil {
		return fmt.Errorf("%w: GET %s: %w", ErrNotAvailable, s.url, err)
	}
	return nil
}
