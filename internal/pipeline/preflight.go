package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/scenario"
)

// ErrInput is wrapped by the errors of bad input found before or while
// preparing a run: a server that is not there, a dataset file that is
// missing or malformed. Like ErrUnsupported it is a usage error (exit 2):
// nothing was measured.
var ErrInput = errors.New("bad input")

// inputError is an error matching ErrInput whose message is its own, with
// an optional hint for a second line.
type inputError struct {
	err  error
	hint string
}

func (e *inputError) Error() string {
	if e.hint == "" {
		return e.err.Error()
	}
	return e.err.Error() + "\n" + e.hint
}
func (e *inputError) Unwrap() error        { return e.err }
func (e *inputError) Is(target error) bool { return target == ErrInput }

// InputError marks err as bad input (it then matches ErrInput).
func InputError(err error) error {
	if err == nil || errors.Is(err, ErrInput) {
		return err
	}
	return &inputError{err: err}
}

// preflightTimeout bounds the pre-flight's TCP connect.
const preflightTimeout = 5 * time.Second

// preflight checks, before any work (tokenizer downloads, datasets), that
// a server target accepts TCP connections at its base URL, so that a
// server that is not running is one line and exit 2 rather than a run of
// failed requests. The built-in simulator is not checked, nor a target
// reached through a proxy (only the proxy would answer).
func preflight(ctx context.Context, sc *scenario.Scenario, env Env) error {
	if sc.Target.Simulator != nil {
		return nil
	}
	base := serverBase(sc)
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return nil // the scenario's validation names a bad base URL
	}
	if proxy, err := http.ProxyFromEnvironment(&http.Request{URL: u}); err != nil || proxy != nil {
		return nil
	}
	addr := backend.DialAddr(u)
	d := net.Dialer{Timeout: preflightTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err == nil {
		_ = conn.Close()
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	what := "cannot connect to"
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		what = "no server is listening at"
	case errors.As(err, &dnsErr):
		what = "cannot resolve the host of"
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		what = fmt.Sprintf("no answer within %s from", preflightTimeout)
	}
	return &inputError{
		err:  fmt.Errorf("%s %s (%v)", what, scenario.RedactURL(base), errors.Unwrap(err)),
		hint: preflightHint(env),
	}
}

// preflightHint says how to point the run at a server.
func preflightHint(env Env) string {
	if env.Argv != nil {
		return "hint: start the server, or point vbench at it with --base-url (or --host and --port); `vbench sim` serves a simulated one"
	}
	return "hint: start the server, or point the scenario at it: VBENCH_URL=http://HOST:PORT (the shipped scenarios read it) or --set target.base_url=http://HOST:PORT; `vbench sim` serves a simulated one"
}

// isTimeout reports whether err is a network timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
