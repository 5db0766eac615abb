//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package backend

import (
	"bufio"
	"context"
	"io"
	"net"
	"runtime"
	"syscall"
	"testing"
)

// TestH1StaleIdleNotWritten checks that a request never goes out on an
// idle connection the server has already closed: the client finds the
// close before it writes and sends the request on a new connection. The
// server here only half-closes and keeps reading, so bytes written on
// the stale connection would reach it (the lean client used to write the
// request there and then send it again).
func TestH1StaleIdleNotWritten(t *testing.T) {
	late := make(chan int64, 1)
	srv := newStaleServer(t, 1, func(conn net.Conn, br *bufio.Reader) {
		_ = conn.(*net.TCPConn).CloseWrite()
		n, _ := io.Copy(io.Discard, br) // until the client closes its end
		late <- n
	})
	c := paths(t, Config{URL: srv.url(), MaxConns: 1})["h1"]
	if rec := sendOne(context.Background(), t, c, ""); !rec.Success {
		t.Fatalf("first request: %s", rec.Error)
	}
	// Wait until the server's FIN has reached the idle connection.
	idle := c.h1.pool.idle[0]
	for !idle.peek.gone() {
		runtime.Gosched()
	}
	if rec := sendOne(context.Background(), t, c, ""); !rec.Success {
		t.Fatalf("second request: %s", rec.Error)
	}
	if n := <-late; n != 0 {
		t.Errorf("%d bytes were written on the closed connection, want 0", n)
	}
	if n, conns := len(srv.reqs()), srv.conns.Load(); n != 2 || conns != 2 {
		t.Errorf("%d requests on %d connections, want 2 on 2", n, conns)
	}
}

// TestH1RetriesReset checks that a request is sent again on a new
// connection when the server resets the reused one, as a server that
// closes an idle connection just as the request arrives does (it closes
// with the request unread, and the kernel resets the connection): the
// request was not served.
func TestH1RetriesReset(t *testing.T) {
	srv := newStaleServer(t, 1, func(conn net.Conn, _ *bufio.Reader) {
		// Wait for the request without reading it, then close.
		raw, err := conn.(*net.TCPConn).SyscallConn()
		if err != nil {
			return
		}
		var b [1]byte
		_ = raw.Read(func(fd uintptr) bool {
			_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			return err != syscall.EAGAIN
		})
	})
	c := paths(t, Config{URL: srv.url(), MaxConns: 1})["h1"]
	for i := range 2 {
		if rec := sendOne(context.Background(), t, c, ""); !rec.Success {
			t.Fatalf("request %d: %s", i, rec.Error)
		}
	}
	if n, conns := len(srv.reqs()), srv.conns.Load(); n != 2 || conns != 2 {
		t.Errorf("%d requests answered on %d connections, want 2 on 2", n, conns)
	}
}

// BenchmarkH1Peek measures the look at an idle connection that precedes
// every request on a reused one.
func BenchmarkH1Peek(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_, _ = io.Copy(io.Discard, c)
		}
	}()
	conn, err := (&dialer{}).dial(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	p := newH1Peek(conn)
	if p == nil {
		b.Fatal("no peek")
	}
	b.ReportAllocs()
	for b.Loop() {
		if p.gone() {
			b.Fatal("gone")
		}
	}
}
