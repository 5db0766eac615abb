package rxtime

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// tsPair returns a timestamped client connection and its server end.
func tsPair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); srv.Close() })
	rc, ok := Wrap(c).(*Conn)
	if !ok {
		t.Fatal("Wrap did not enable receive timestamps")
	}
	return rc, srv
}

// ReadEach hands over every piece with its receive time and reads each
// arrival once: after a read that drained the socket it waits for the next
// arrival instead of reading the empty socket (which a loop of Reads does,
// once per arrival). Each piece is written only after the previous one was
// handed over, so every arrival finds the reader done with the last.
func TestReadEachOneReadPerArrival(t *testing.T) {
	rc, srv := tsPair(t)
	const pieces = 20
	handed := make(chan struct{})
	go func() {
		for i := range pieces {
			if _, err := srv.Write([]byte{'a' + byte(i)}); err != nil {
				return
			}
			<-handed
		}
		srv.Close()
	}()
	buf := make([]byte, 64)
	reads, got := 0, []byte{}
	var end error
	werr := rc.ReadEach(func() []byte { reads++; return buf }, func(n int, err error) bool {
		if n > 0 {
			got = append(got, buf[:n]...)
			if age, ok := rc.Age(time.Now()); !ok || age < 0 {
				t.Errorf("piece %d: no receive time (age %v, %v)", len(got), age, ok)
			}
			handed <- struct{}{}
		}
		if err != nil {
			end = err
		}
		return true
	})
	if werr != nil {
		t.Fatalf("ReadEach: %v", werr)
	}
	if end != io.EOF {
		t.Errorf("the last read ended with %v, want EOF", end)
	}
	if string(got) != "abcdefghijklmnopqrst" {
		t.Errorf("read %q", got)
	}
	// One read per piece and one for the end; the first may find the
	// socket empty before the first piece.
	if reads > pieces+2 {
		t.Errorf("%d reads for %d pieces: a drained socket was read again", reads, pieces)
	}
}

// ReadEach stops when got says so, and a deadline that ends the wait is
// its error, as a Read's would be.
func TestReadEachStopAndDeadline(t *testing.T) {
	rc, srv := tsPair(t)
	if _, err := srv.Write([]byte("xyz")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	calls := 0
	werr := rc.ReadEach(func() []byte { return buf }, func(n int, err error) bool {
		calls++
		return false
	})
	if werr != nil || calls != 1 {
		t.Fatalf("stopped ReadEach: %v after %d calls", werr, calls)
	}
	if err := rc.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	werr = rc.ReadEach(func() []byte { return buf }, func(n int, err error) bool {
		t.Errorf("got(%d, %v) with nothing to read", n, err)
		return true
	})
	var op *net.OpError
	if !errors.As(werr, &op) || !errors.Is(werr, os.ErrDeadlineExceeded) {
		t.Errorf("ReadEach past its deadline: %v, want a net.OpError wrapping os.ErrDeadlineExceeded", werr)
	}
}

// A reset connection's error reaches got, wrapped as a Read's.
func TestReadEachReset(t *testing.T) {
	rc, srv := tsPair(t)
	if err := srv.(*net.TCPConn).SetLinger(0); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	var end error
	werr := rc.ReadEach(func() []byte { return make([]byte, 8) }, func(n int, err error) bool {
		end = err
		return true
	})
	if werr != nil || !errors.Is(end, syscall.ECONNRESET) {
		t.Errorf("ReadEach on a reset connection: wait error %v, read error %v", werr, end)
	}
}

// A deadline ends ReadEach even while data keeps coming faster than it is
// read, so that every read fills its buffer and none waits (Go's poller
// looks at the deadline only when a read waits). The server floods for at
// most ten seconds and then closes: a ReadEach that missed the deadline
// ends with that EOF instead of the deadline's error.
func TestReadEachDeadlineWhileFlooded(t *testing.T) {
	rc, srv := tsPair(t)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer srv.Close()
		chunk := make([]byte, 64<<10)
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := srv.Write(chunk); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 16)
	first := true
	werr := rc.ReadEach(func() []byte { return buf }, func(n int, err error) bool {
		if err != nil {
			t.Errorf("got(%d, %v): the flood ended before the deadline did", n, err)
			return false
		}
		if first { // the flood is on: the deadline passes while it lasts
			first = false
			if err := rc.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
				t.Fatal(err)
			}
		}
		return true
	})
	if !errors.Is(werr, os.ErrDeadlineExceeded) {
		t.Errorf("ReadEach past its deadline in a flood: %v, want os.ErrDeadlineExceeded", werr)
	}
}
