package backend

import (
	"context"
	"net"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/rxtime"
)

// TestPreconnectExpires checks that pre-dialled connections are handed out
// only for preconnectMaxAge, then closed and replaced by new dials. The
// clock is simulated.
func TestPreconnectExpires(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	c, err := New(Config{Backend: "openai", URL: "http://" + ln.Addr().String() + "/v1/completions"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	now := time.Unix(1000, 0)
	c.dial.now = func() time.Time { return now }
	ctx := context.Background()
	if err := c.Preconnect(ctx, 3); err != nil {
		t.Fatal(err)
	}
	pre := slices.Clone(c.dial.ready)
	addr := ln.Addr().String()

	now = now.Add(preconnectMaxAge)
	got, err := c.dial.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pre, got) {
		t.Error("a dial within preconnectMaxAge did not get a pre-dialled connection")
	}
	_ = got.Close()

	now = now.Add(time.Millisecond)
	got, err = c.dial.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if slices.Contains(pre, got) {
		t.Error("a dial after preconnectMaxAge got a stale pre-dialled connection")
	}
	if n := len(c.dial.ready); n != 0 {
		t.Errorf("%d stale pre-dialled connections kept, want 0", n)
	}
	for _, p := range pre {
		if p == got {
			continue
		}
		if _, err := p.Write([]byte("x")); err == nil {
			t.Error("a stale pre-dialled connection was left open")
		}
	}
}

// A read that returns late is stamped with when its data arrived.
func TestArrivalClock(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := &dialer{}
	conn, err := d.dial(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	var readLag time.Duration
	clock := arrivalClock(now, conn, &readLag)
	if rxtime.Of(conn) == nil {
		if runtime.GOOS == "linux" {
			t.Fatal("dialled connection has no receive timestamps")
		}
		t.Skip("receive timestamps are read on Linux only")
	}
	buf := make([]byte, 1)
	for i := 0; ; i++ { // the kernel turns timestamping on a moment later
		if _, err := server.Write([]byte{'x'}); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Read(buf); err != nil {
			t.Fatal(err)
		}
		if _, ok := rxtime.Of(conn).Age(time.Now()); ok {
			break
		}
		if i == 200 {
			t.Fatal("reads never carried a receive timestamp")
		}
		time.Sleep(5 * time.Millisecond)
	}
	sent := now()
	if _, err := server.Write([]byte{'y'}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	if _, err := conn.Read(buf); err != nil {
		t.Fatal(err)
	}
	read, got := now(), clock()
	after := now()
	// The clock reads the run's clock, then the wall clock for the age:
	// a preempted goroutine between the two moves the stamp earlier by
	// the gap (80 µs seen on a loaded host; a loaded CI machine can
	// preempt for milliseconds), hence the 10 ms, still well clear of the
	// 30 ms the data waits.
	if got < sent-10*time.Millisecond || read-got < 25*time.Millisecond {
		t.Errorf("stamped %v, sent at %v and read at %v: want the arrival, about 30ms before the read", got, sent, read)
	}
	if readLag < 25*time.Millisecond || readLag > after-sent {
		t.Errorf("read lag %v, want the about 30ms the data waited before the read", readLag)
	}
}
