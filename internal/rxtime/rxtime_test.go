package rxtime

import (
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"testing"
	"time"
)

// pair returns both ends of a loopback TCP connection, the accepted end
// wrapped by Listen.
func pair(t *testing.T) (client net.Conn, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	wl := Listen(ln)
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := wl.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

func TestReadRecordsArrival(t *testing.T) {
	client, server := pair(t)
	rc := Of(server)
	if runtime.GOOS != "linux" {
		if rc != nil {
			t.Fatal("timestamps off Linux")
		}
		t.Skip("receive timestamps are read on Linux only")
	}
	if rc == nil {
		t.Fatal("Listen did not wrap the accepted connection")
	}
	if _, ok := rc.Age(time.Now()); ok {
		t.Error("an age before any read")
	}
	settle(t, client, server)
	sent := time.Now()
	if _, err := client.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	// Read late: the timestamp must still be the arrival, not the read.
	time.Sleep(30 * time.Millisecond)
	buf := make([]byte, 16)
	n, err := server.Read(buf)
	if err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	now := time.Now()
	age, ok := rc.Age(now)
	if !ok {
		t.Fatal("no receive timestamp after a read")
	}
	if waited := now.Sub(sent); age > waited || age < 25*time.Millisecond {
		t.Errorf("age %v, want between 25ms (the late read) and %v (since the write)", age, waited)
	}
}

// settle waits until reads on server carry timestamps: the kernel turns
// receive timestamping on a moment after the first socket asks for it.
func settle(t *testing.T, client, server net.Conn) {
	t.Helper()
	buf := make([]byte, 1)
	for range 200 {
		if _, err := client.Write([]byte{'x'}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(server, buf); err != nil {
			t.Fatal(err)
		}
		if _, ok := Of(server).Age(time.Now()); ok {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("reads never carried a receive timestamp")
}

func TestReadEOFAndDeadline(t *testing.T) {
	client, server := pair(t)
	if err := server.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	_, err := server.Read(make([]byte, 4))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline = %v, want a timeout", err)
	}
	if err := server.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	client.Close()
	if n, err := server.Read(make([]byte, 4)); n != 0 || err != io.EOF {
		t.Fatalf("Read after the peer closed = %d, %v; want 0, EOF", n, err)
	}
	if n, err := server.Read(nil); n != 0 || err != nil {
		t.Fatalf("empty Read = %d, %v", n, err)
	}
}

func TestOfOthers(t *testing.T) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	if Wrap(c1) != c1 {
		t.Error("Wrap changed a non-TCP connection")
	}
	if Of(c1) != nil {
		t.Error("Of found timestamps on a pipe")
	}
	var nilConn *Conn
	if _, ok := nilConn.Age(time.Now()); ok {
		t.Error("a nil Conn has an age")
	}
}
