package clocksync

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// shifted returns the real clock shifted by d.
func shifted(d time.Duration) Clock {
	return func() time.Time { return time.Now().Add(d) }
}

// startServer serves clock on a loopback port until the test ends.
func startServer(t testing.TB, clock Clock) *Server {
	t.Helper()
	s, err := Serve("127.0.0.1:0", clock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// freeAddr returns a loopback address on which nothing listens (a port
// reserved and released).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// abs returns |d|.
func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func TestMeasureOffset(t *testing.T) {
	const (
		samples  = 32
		attempts = 3 // a loaded CI machine may stall once
	)
	tests := []struct {
		name           string
		server, client time.Duration // shifts of the two clocks
	}{
		{"same", 0, 0},
		{"server ahead", 250 * time.Millisecond, 0},
		{"client behind", 0, -170 * time.Millisecond},
		{"both shifted", 3 * time.Second, -2 * time.Second},
		{"client ahead", -time.Hour, 42 * time.Microsecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, shifted(tt.server))
			want := tt.client - tt.server
			for i := 1; ; i++ {
				est, err := Measure(context.Background(), s.Addr(), samples, shifted(tt.client))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("attempt %d: offset %v (want %v, error %v), uncertainty %v, %d samples",
					i, est.Offset, want, est.Offset-want, est.Uncertainty, est.Samples)
				if est.Samples != samples {
					t.Errorf("Samples = %d, want %d", est.Samples, samples)
				}
				if e := abs(est.Offset - want); e > est.Uncertainty+time.Microsecond {
					t.Fatalf("|Offset - want| = %v > Uncertainty %v + 1µs", e, est.Uncertainty)
				}
				if est.Uncertainty < time.Millisecond {
					return
				}
				if i == attempts {
					t.Fatalf("Uncertainty %v >= 1ms in all %d attempts", est.Uncertainty, attempts)
				}
			}
		})
	}
}

func TestMeasureOneConnection(t *testing.T) {
	var conns atomic.Int32
	ts := httptest.NewUnstartedServer(Handler(nil))
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	ts.Start()
	defer ts.Close()
	est, err := Measure(context.Background(), ts.Listener.Addr().String(), 16, nil)
	if err != nil {
		t.Fatal(err)
	}
	if est.Samples != 16 {
		t.Errorf("Samples = %d, want 16", est.Samples)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

func TestTransportHasNoProxy(t *testing.T) {
	if newTransport().Proxy != nil {
		t.Error("transport takes a proxy (from the environment?)")
	}
}

func TestMeasureWaitsForServer(t *testing.T) {
	addr := freeAddr(t)
	const delay = 300 * time.Millisecond
	started := make(chan *Server, 1)
	go func() {
		time.Sleep(delay)
		s, err := Serve(addr, nil)
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
		started <- s
	}()
	defer func() {
		if s := <-started; s != nil {
			_ = s.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	begin := time.Now()
	est, err := Measure(ctx, addr, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took < delay-50*time.Millisecond {
		t.Errorf("Measure took %v, before the server was up", took)
	}
	if est.Samples != 8 {
		t.Errorf("Samples = %d, want 8", est.Samples)
	}
}

func TestMeasureNothingListens(t *testing.T) {
	addr := freeAddr(t)
	const wait = 350 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	begin := time.Now()
	_, err := Measure(ctx, addr, 8, nil)
	took := time.Since(begin)
	if err == nil {
		t.Fatal("Measure succeeded with no server")
	}
	t.Log(err)
	if took < wait-20*time.Millisecond {
		t.Errorf("Measure gave up after %v, before the context ended", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error does not wrap context.DeadlineExceeded: %v", err)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("error does not wrap ECONNREFUSED: %v", err)
	}
	if !strings.Contains(err.Error(), addr) {
		t.Errorf("error does not name %s: %v", addr, err)
	}
}

func TestMeasureBadServer(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string // in the error
	}{
		{"not found", http.NotFound, "404"},
		{"garbage", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "hello") }, "not a decimal integer"},
		{"too long", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, strings.Repeat("1", 100)) }, "too long"},
		{"empty", func(http.ResponseWriter, *http.Request) {}, "empty"},
		{"redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) }, "302"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(tt.handler)
			defer ts.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := Measure(ctx, ts.Listener.Addr().String(), 4, nil)
			if err == nil {
				t.Fatal("Measure succeeded")
			}
			t.Log(err)
			if ctx.Err() != nil {
				t.Error("Measure retried until the context ended")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error does not contain %q", tt.want)
			}
		})
	}
}

func TestBadArguments(t *testing.T) {
	ctx := context.Background()
	if _, err := Measure(ctx, "127.0.0.1:1", 0, nil); err == nil {
		t.Error("Measure with 0 samples succeeded")
	}
	if _, err := Measure(ctx, "no-port", 4, nil); err == nil {
		t.Error("Measure of an address without a port succeeded")
	}
	if err := Done(ctx, "127.0.0.1:1", -1); err == nil {
		t.Error("Done of shard -1 succeeded")
	}
	if err := Done(ctx, "no-port", 1); err == nil {
		t.Error("Done to an address without a port succeeded")
	}
	if _, err := Serve("127.0.0.1:-1", nil); err == nil {
		t.Error("Serve on port -1 succeeded")
	}
}

func TestHandler(t *testing.T) {
	ts := httptest.NewServer(Handler(shifted(time.Hour)))
	defer ts.Close()
	tests := []struct {
		method, target string
		want           int
	}{
		{http.MethodGet, "/time", http.StatusOK},
		{http.MethodPost, "/time", http.StatusMethodNotAllowed},
		{http.MethodPost, "/done?shard=3", http.StatusNoContent},
		{http.MethodPost, "/done?shard=0", http.StatusNoContent},
		{http.MethodPost, "/done", http.StatusBadRequest},
		{http.MethodPost, "/done?shard=x", http.StatusBadRequest},
		{http.MethodPost, "/done?shard=-1", http.StatusBadRequest},
		{http.MethodGet, "/done?shard=1", http.StatusMethodNotAllowed},
		{http.MethodGet, "/", http.StatusNotFound},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, ts.URL+tt.target, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s %s: %s, want %d", tt.method, tt.target, resp.Status, tt.want)
		}
	}
}

func TestHandlerTime(t *testing.T) {
	ts := httptest.NewServer(Handler(shifted(time.Hour)))
	defer ts.Close()
	before := time.Now().Add(time.Hour).UnixNano()
	resp, err := ts.Client().Get(ts.URL + "/time")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf [64]byte
	n, _ := resp.Body.Read(buf[:])
	after := time.Now().Add(time.Hour).UnixNano()
	ns, err := parseTime(buf[:n])
	if err != nil {
		t.Fatal(err)
	}
	if ns < before || ns > after {
		t.Errorf("time %d outside [%d, %d]", ns, before, after)
	}
	if resp.ContentLength != int64(n) {
		t.Errorf("Content-Length %d, body %d bytes", resp.ContentLength, n)
	}
}

// waitResult runs s.WaitDone(ctx, peers) in the background.
func waitResult(ctx context.Context, s *Server, peers int) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- s.WaitDone(ctx, peers) }()
	return ch
}

// done posts Done for each shard.
func done(t *testing.T, addr string, shards ...int) {
	t.Helper()
	for _, shard := range shards {
		if err := Done(context.Background(), addr, shard); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWaitDone(t *testing.T) {
	s := startServer(t, nil)
	result := waitResult(context.Background(), s, 3)
	done(t, s.Addr(), 1, 1, 2, 2, 1)
	select {
	case err := <-result:
		t.Fatalf("WaitDone returned %v after 2 distinct shards of 3", err)
	case <-time.After(100 * time.Millisecond):
	}
	done(t, s.Addr(), 5)
	select {
	case err := <-result:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WaitDone did not return after 3 distinct shards")
	}
	// Once enough have reported, WaitDone returns at once.
	if err := s.WaitDone(context.Background(), 3); err != nil {
		t.Error(err)
	}
	if err := s.WaitDone(context.Background(), 0); err != nil {
		t.Error(err)
	}
}

func TestWaitDoneContextEnds(t *testing.T) {
	s := startServer(t, nil)
	done(t, s.Addr(), 4, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := s.WaitDone(ctx, 3)
	if err == nil {
		t.Fatal("WaitDone succeeded with 1 of 3")
	}
	t.Log(err)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error does not wrap context.DeadlineExceeded: %v", err)
	}
	if !strings.Contains(err.Error(), "1 of 3") {
		t.Errorf("error does not name the count 1 of 3: %v", err)
	}
}

func TestWaitDoneClose(t *testing.T) {
	s := startServer(t, nil)
	result := waitResult(context.Background(), s, 2)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-result:
		if err == nil || !strings.Contains(err.Error(), "0 of 2") {
			t.Errorf("WaitDone after Close: %v, want an error naming 0 of 2", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WaitDone did not return after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestServeAllInterfaces(t *testing.T) {
	s, err := Serve(":0", nil)
	if err != nil {
		t.Fatalf("cannot listen on every interface: %v", err)
	}
	defer s.Close()
	_, port, err := net.SplitHostPort(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Measure(context.Background(), net.JoinHostPort("127.0.0.1", port), 2, nil); err != nil {
		t.Fatal(err)
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		body    string
		want    int64
		wantErr bool
	}{
		{"0", 0, false},
		{"1700000000123456789", 1700000000123456789, false},
		{"-42", -42, false},
		{"9223372036854775807", 9223372036854775807, false},
		{"-9223372036854775808", -9223372036854775808, false},
		{"9223372036854775808", 0, true},
		{"-9223372036854775809", 0, true},
		{"", 0, true},
		{"-", 0, true},
		{"+1", 0, true},
		{" 1", 0, true},
		{"1\n", 0, true},
		{"1_000", 0, true},
		{"0x10", 0, true},
		{"1.5", 0, true},
		{"abc", 0, true},
		{"--1", 0, true},
		{"123456789012345678901", 0, true},
	}
	for _, tt := range tests {
		got, err := parseTime([]byte(tt.body))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("parseTime(%q) = %d, %v; want %d, error %v", tt.body, got, err, tt.want, tt.wantErr)
		}
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"0", "-1", "1700000000123456789", "+1", "", "x", "99999999999999999999"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ns, err := parseTime(body)
		if err != nil {
			return
		}
		// Whatever parses is canonical enough to round-trip.
		want, perr := strconv.ParseInt(string(body), 10, 64)
		if perr != nil || want != ns || strings.ContainsAny(string(body), "+ \t\n_") {
			t.Fatalf("parseTime(%q) = %d, accepted", body, ns)
		}
		if got := appendTime(nil, time.Unix(0, ns)); !slices.Equal(got, []byte(strconv.FormatInt(ns, 10))) {
			t.Fatalf("appendTime(%d) = %q", ns, got)
		}
	})
}

// BenchmarkMeasure measures 32 round trips on loopback per iteration and
// reports the median, minimum and maximum Uncertainty.
func BenchmarkMeasure(b *testing.B) {
	s := startServer(b, nil)
	var unc []time.Duration
	for b.Loop() {
		est, err := Measure(context.Background(), s.Addr(), 32, nil)
		if err != nil {
			b.Fatal(err)
		}
		unc = append(unc, est.Uncertainty)
	}
	slices.Sort(unc)
	b.ReportMetric(float64(unc[len(unc)/2].Nanoseconds())/1e3, "µs-unc-median")
	b.ReportMetric(float64(unc[0].Nanoseconds())/1e3, "µs-unc-min")
	b.ReportMetric(float64(unc[len(unc)-1].Nanoseconds())/1e3, "µs-unc-max")
}
