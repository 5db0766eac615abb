package ringnet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/rxtime"
)

// adopted dials a loopback listener and returns the client end, adopted
// (with receive timestamps on, as vbench's dialer has them), and the
// server end. Without io_uring the test fails, unless
// VBENCH_ALLOW_NO_URING=1 lets it skip.
func adopted(t *testing.T) (*Conn, *net.TCPConn) {
	t.Helper()
	if !Available() {
		if os.Getenv("VBENCH_ALLOW_NO_URING") == "1" {
			t.Skip("io_uring is not available here (VBENCH_ALLOW_NO_URING=1)")
		}
		t.Fatal("io_uring is not available (VBENCH_ALLOW_NO_URING=1 allows that)")
	}
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
	rc := Adopt(rxtime.Wrap(c))
	if rc == nil {
		t.Fatal("Adopt refused a TCP connection")
	}
	t.Cleanup(func() { _ = rc.Close(); _ = srv.Close() })
	return rc, srv.(*net.TCPConn)
}

// An adopted connection carries requests and responses both ways, and the
// connection it was adopted from is closed without ending the connection.
func TestAdoptReadWrite(t *testing.T) {
	rc, srv := adopted(t)
	if _, err := rc.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(srv, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("server read %q, %v", buf, err)
	}
	if _, err := srv.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(rc, buf); err != nil || string(buf) != "pong" {
		t.Fatalf("client read %q, %v", buf, err)
	}
	if _, ok := rc.Age(time.Now()); !ok {
		t.Error("a read left no receive time")
	}
	_ = srv.CloseWrite()
	if n, err := rc.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("read after the peer's FIN: %d, %v; want 0, EOF", n, err)
	}
	if rc.LocalAddr() == nil || rc.RemoteAddr().String() != srv.LocalAddr().String() {
		t.Errorf("addresses %v -> %v", rc.LocalAddr(), rc.RemoteAddr())
	}
}

// Only TCP connections are adopted.
func TestAdoptRefusesOthers(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Adopt(a) != nil {
		t.Error("Adopt took a net.Pipe")
	}
}

// ReadEach hands every arrival to got on the poller, with its receive
// time, then EOF; the caller waits meanwhile.
func TestReadEach(t *testing.T) {
	rc, srv := adopted(t)
	const pieces = 30
	go func() {
		for i := range pieces {
			_, _ = fmt.Fprintf(srv, "event %02d\n", i)
			time.Sleep(time.Millisecond)
		}
		_ = srv.Close()
	}()
	var got bytes.Buffer
	buf := make([]byte, 256)
	var end error
	reads := 0
	werr := rc.ReadEach(func() []byte { return buf }, func(n int, err error) bool {
		got.Write(buf[:n])
		if n > 0 {
			reads++
			if _, ok := rc.Age(time.Now()); !ok {
				t.Error("an arrival without a receive time")
			}
		}
		end = err
		return err == nil
	})
	if werr != nil || end != io.EOF {
		t.Fatalf("ReadEach: wait error %v, last read %v", werr, end)
	}
	var want bytes.Buffer
	for i := range pieces {
		fmt.Fprintf(&want, "event %02d\n", i)
	}
	if got.String() != want.String() {
		t.Errorf("read %q", got.String())
	}
	if reads == 0 || reads > pieces {
		t.Errorf("%d reads for %d pieces", reads, pieces)
	}
}

// got stopping ReadEach ends it with no error, and the connection reads on.
func TestReadEachStops(t *testing.T) {
	rc, srv := adopted(t)
	if _, err := srv.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	if err := rc.ReadEach(func() []byte { return buf[:1] }, func(n int, err error) bool { return false }); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(rc, buf[:2]); err != nil || string(buf[:2]) != "bc" {
		t.Errorf("read on after ReadEach: %q, %v", buf[:2], err)
	}
}

// Deadlines end waiting reads and ReadEach as Go's connections do; a
// deadline moved into the past from another goroutine interrupts a read
// already waiting (the client's way of cancelling a request).
func TestDeadlines(t *testing.T) {
	rc, _ := adopted(t)
	buf := make([]byte, 8)
	isDeadline := func(err error) bool {
		var op *net.OpError
		return errors.As(err, &op) && errors.Is(err, os.ErrDeadlineExceeded)
	}
	if err := rc.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.Read(buf); !isDeadline(err) {
		t.Errorf("Read past its deadline: %v", err)
	}
	werr := rc.ReadEach(func() []byte { return buf }, func(n int, err error) bool {
		t.Errorf("got(%d, %v) with nothing to read", n, err)
		return true
	})
	if !isDeadline(werr) {
		t.Errorf("ReadEach past its deadline: %v", werr)
	}

	if err := rc.SetDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := rc.Read(buf)
		done <- err
	}()
	time.Sleep(10 * time.Millisecond) // let the read wait (either way it must end)
	if err := rc.SetDeadline(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !isDeadline(err) {
		t.Errorf("Read interrupted by a past deadline: %v", err)
	}
	if err := rc.SetWriteDeadline(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Write past its deadline: %v", err)
	}
}

// Close ends a waiting read with net.ErrClosed, and a second Close fails.
func TestCloseInterruptsRead(t *testing.T) {
	rc, _ := adopted(t)
	done := make(chan error, 1)
	go func() {
		_, err := rc.Read(make([]byte, 8))
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	if err := rc.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Errorf("Read interrupted by Close: %v", err)
	}
	if err := rc.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
	if _, err := rc.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	if _, err := rc.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	// Deadlines on a closed connection fail as a net.TCPConn's do.
	for name, set := range map[string]func(time.Time) error{"SetDeadline": rc.SetDeadline, "SetReadDeadline": rc.SetReadDeadline, "SetWriteDeadline": rc.SetWriteDeadline} {
		if err := set(time.Now()); !errors.Is(err, net.ErrClosed) {
			t.Errorf("%s after Close: %v", name, err)
		}
	}
}

// A reset reaches the reader as ECONNRESET, as with Go's connections.
func TestReset(t *testing.T) {
	rc, srv := adopted(t)
	if err := srv.SetLinger(0); err != nil {
		t.Fatal(err)
	}
	_ = srv.Close()
	_, err := rc.Read(make([]byte, 8))
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("Read of a reset connection: %v", err)
	}
}

// A write larger than the socket buffers waits, through the poller, for
// the peer to read, and every byte arrives in order.
func TestLargeWrite(t *testing.T) {
	rc, srv := adopted(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	var got []byte
	var wg sync.WaitGroup
	wg.Go(func() {
		b := make([]byte, 4096)
		for len(got) < len(big) {
			n, err := srv.Read(b)
			got = append(got, b[:n]...)
			if err != nil {
				return
			}
		}
	})
	n, err := rc.Write(big)
	wg.Wait()
	if err != nil || n != len(big) || !bytes.Equal(got, big) {
		t.Errorf("wrote %d of %d (%v), the peer read %d, equal %v", n, len(big), err, len(got), bytes.Equal(got, big))
	}
}

// SyscallConn's Read waits for readability between calls of its callback,
// which is how the client looks at an idle connection (MSG_PEEK).
func TestRawConnRead(t *testing.T) {
	rc, srv := adopted(t)
	raw, err := rc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var peeked []byte
	calls := 0
	go func() {
		time.Sleep(10 * time.Millisecond)
		_, _ = srv.Write([]byte("hi"))
	}()
	err = raw.Read(func(fd uintptr) bool {
		calls++
		b := make([]byte, 8)
		n, _, err := syscall.Recvfrom(int(fd), b, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		if err == syscall.EAGAIN {
			return false
		}
		peeked = b[:max(n, 0)]
		return true
	})
	if err != nil || string(peeked) != "hi" {
		t.Errorf("raw read: %q, %v after %d calls", peeked, err, calls)
	}
	buf := make([]byte, 2)
	if _, err := io.ReadFull(rc, buf); err != nil || string(buf) != "hi" {
		t.Errorf("the peeked bytes are still there: %q, %v", buf, err)
	}
	var fd uintptr
	if err := raw.Control(func(s uintptr) { fd = s }); err != nil || fd == 0 {
		t.Errorf("Control: fd %d, %v", fd, err)
	}
}

// Many connections stream at once through the one poller; each gets its
// own bytes.
func TestManyStreams(t *testing.T) {
	const conns, pieces = 50, 20
	var wg sync.WaitGroup
	for i := range conns {
		rc, srv := adopted(t)
		go func() {
			for j := range pieces {
				_, _ = fmt.Fprintf(srv, "%d-%d;", i, j)
				time.Sleep(time.Duration(i%5) * 100 * time.Microsecond)
			}
			_ = srv.Close()
		}()
		wg.Go(func() {
			var got bytes.Buffer
			buf := make([]byte, 64)
			_ = rc.ReadEach(func() []byte { return buf }, func(n int, err error) bool {
				got.Write(buf[:n])
				return err == nil
			})
			var want bytes.Buffer
			for j := range pieces {
				fmt.Fprintf(&want, "%d-%d;", i, j)
			}
			if got.String() != want.String() {
				t.Errorf("connection %d read %q", i, got.String())
			}
		})
	}
	wg.Wait()
}
