package backend

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/rxtime"
)

// readTask collects a connection's bytes until EOF.
type readTask struct {
	c    *rxtime.Conn
	got  []byte
	err  error
	buf  [64]byte
	seen int // steps
}

func (r *readTask) step() bool {
	r.seen++
	n, err := r.c.TryRead(r.buf[:])
	r.got = append(r.got, r.buf[:n]...)
	switch {
	case errors.Is(err, rxtime.ErrWouldBlock):
		return false
	case err == io.EOF:
		return true
	case err != nil:
		r.err = err
		return true
	}
	return false
}

// tcpPair returns a timestamped client end and the server end of a
// loopback connection.
func tcpPair(t *testing.T) (*rxtime.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := (&dialer{}).dial(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	rc := rxtime.Of(c)
	if rc == nil {
		t.Fatal("dialled connection has no receive timestamps")
	}
	return rc, s
}

// Many connections read by the one poller each get all their bytes.
func TestPollerReadsToEOF(t *testing.T) {
	p := getPoller()
	if p == nil {
		t.Fatal("no poller")
	}
	const conns, msgs = 50, 20
	var wg sync.WaitGroup
	for i := range conns {
		c, s := tcpPair(t)
		task := &readTask{c: c}
		wg.Go(func() {
			for j := range msgs {
				if _, err := s.Write([]byte{byte('a' + j%26)}); err != nil {
					t.Error(err)
				}
				time.Sleep(time.Duration(i%3) * 100 * time.Microsecond)
			}
			s.Close()
		})
		wg.Go(func() {
			if ok, err := p.serve(context.Background(), c.Fd(), task); !ok || err != nil || task.err != nil {
				t.Errorf("conn %d: serve failed: %v", i, task.err)
			}
			if len(task.got) != msgs {
				t.Errorf("conn %d: got %q", i, task.got)
			}
		})
	}
	wg.Wait()
	if n := len(p.tasks); n != 0 {
		t.Errorf("%d tasks left registered", n)
	}
}

// A cancelled wait unregisters the connection, so it can be closed.
func TestPollerCancel(t *testing.T) {
	p := getPoller()
	c, s := tcpPair(t)
	ctx, cancel := context.WithCancel(context.Background())
	task := &readTask{c: c}
	done := make(chan bool)
	go func() {
		ok, _ := p.serve(ctx, c.Fd(), task)
		done <- ok
	}()
	if _, err := s.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	for {
		p.mu.Lock()
		_, listed := p.tasks[int32(c.Fd())]
		p.mu.Unlock()
		if listed {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if <-done {
		t.Error("a cancelled task reported finished")
	}
	p.mu.Lock()
	_, listed := p.tasks[int32(c.Fd())]
	p.mu.Unlock()
	if listed {
		t.Error("cancelled connection still registered")
	}
}
