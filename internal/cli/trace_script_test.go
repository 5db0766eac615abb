package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/record"
)

// traceproxy LOG starts a loopback forwarding proxy in front of $SIM_URL,
// sets $TRACE_URL to it, and appends one line per request it forwards to
// LOG: the path, the x-request-id and every traceparent value, separated
// by tabs. The line is written before the request is forwarded, so it is
// complete once the client has its response.
func traceproxy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: traceproxy LOG")
	}
	log, err := os.OpenFile(ts.MkAbs(args[0]), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	ts.Check(err)
	ts.Defer(func() { _ = log.Close() })
	var mu sync.Mutex
	startProxy(ts, "TRACE_URL", func(r *http.Request, _ []byte) {
		mu.Lock()
		fmt.Fprintf(log, "%s\t%s\t%s\n", r.URL.Path, r.Header.Get("X-Request-Id"), strings.Join(r.Header.Values("Traceparent"), ","))
		mu.Unlock()
	})
}

// startProxy starts a loopback forwarding proxy in front of $SIM_URL and
// sets the variable name to its URL. It calls seen with each request and
// its body before forwarding it (so a request's call has returned once the
// client has its response), on a fresh connection, and relays the
// response whole once it has arrived: the tests are about requests, not
// streaming.
func startProxy(ts *testscript.TestScript, name string, seen func(r *http.Request, body []byte)) {
	startProxyAnswering(ts, name, func(_ http.ResponseWriter, r *http.Request, body []byte) bool {
		seen(r, body)
		return false
	})
}

// startProxyAnswering is startProxy with a handler that may answer a
// request itself instead: answer returns true when it has.
func startProxyAnswering(ts *testscript.TestScript, name string, answer func(w http.ResponseWriter, r *http.Request, body []byte) bool) {
	target, err := url.Parse(ts.Getenv("SIM_URL"))
	if err != nil || target.Host == "" {
		ts.Fatalf("the proxy needs $SIM_URL (simserve first): %v", err)
	}
	upstream := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		if answer(w, r, body) {
			return
		}
		u := *target
		u.Path, u.RawQuery = r.URL.Path, r.URL.RawQuery
		req, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, u.String(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		req.Header = r.Header.Clone()
		resp, err := upstream.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(out)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	go func() { _ = srv.Serve(ln) }()
	ts.Setenv(name, "http://"+ln.Addr().String())
	ts.Defer(func() { _ = srv.Close() })
}

// w3cTraceparent is the traceparent vbench sends (W3C version 00, sampled).
var w3cTraceparent = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-01$`)

// checktraces [-off] LOG RECORDS checks the requests a traceproxy logged
// against a run's records file. Each record's trace_id is 32 hex digits
// and unique, and its request (by x-request-id) carried exactly one
// traceparent of the W3C format whose trace id is the record's; parent
// ids are unique; requests without an x-request-id (ready check,
// warmups) carried none. With -off, no request carried one and no
// record has a trace_id. It prints "traced N untraced M".
func checktraces(ts *testscript.TestScript, neg bool, args []string) {
	off := len(args) == 3 && args[0] == "-off"
	if off {
		args = args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: checktraces [-off] LOG RECORDS")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	byID := map[string]string{}
	untraced, parents := 0, map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			ts.Fatalf("bad log line %q", sc.Text())
		}
		if !strings.HasSuffix(fields[0], "/completions") {
			continue // /v1/models, /metrics, ...
		}
		id, tp := fields[1], fields[2]
		switch {
		case off && tp != "":
			ts.Fatalf("request %q carried traceparent %q with trace context off", id, tp)
		case id == "" && tp != "":
			ts.Fatalf("a request without an id (ready check or warmup) carried traceparent %q", tp)
		case id == "":
			untraced++
			continue
		}
		if _, dup := byID[id]; dup {
			ts.Fatalf("request id %q sent twice", id)
		}
		byID[id] = tp
		if m := w3cTraceparent.FindStringSubmatch(tp); m != nil {
			if parents[m[2]] {
				ts.Fatalf("parent id %s sent twice", m[2])
			}
			parents[m[2]] = true
		}
	}
	ts.Check(sc.Err())
	rf, err := record.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	traces := map[string]bool{}
	for _, r := range rf.Records {
		tp, ok := byID[r.RequestID]
		if !ok {
			ts.Fatalf("record %d: request %q never reached the server", r.Index, r.RequestID)
		}
		if off {
			if r.TraceID != "" {
				ts.Fatalf("record %d has trace_id %q with trace context off", r.Index, r.TraceID)
			}
			continue
		}
		m := w3cTraceparent.FindStringSubmatch(tp)
		switch {
		case m == nil:
			ts.Fatalf("record %d: the server saw traceparent %q, not W3C version 00", r.Index, tp)
		case m[1] != r.TraceID:
			ts.Fatalf("record %d: trace_id %q, the server saw %q", r.Index, r.TraceID, m[1])
		case traces[r.TraceID]:
			ts.Fatalf("record %d: trace id %s used twice", r.Index, r.TraceID)
		}
		traces[r.TraceID] = true
	}
	fmt.Fprintf(ts.Stdout(), "traced %d untraced %d\n", len(traces), untraced)
}
