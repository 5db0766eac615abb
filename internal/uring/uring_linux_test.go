package uring

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/vbench/vbench/internal/rxtime"
)

// newRing sets up a ring of entries, closed when the test ends. Where
// io_uring is unavailable the test fails, unless VBENCH_ALLOW_NO_URING=1
// lets it skip.
func newRing(t testing.TB, entries uint32) *Ring {
	t.Helper()
	r, err := New(entries)
	if err != nil {
		if os.Getenv("VBENCH_ALLOW_NO_URING") == "1" {
			t.Skipf("io_uring unavailable (VBENCH_ALLOW_NO_URING=1): New(%d): %v", entries, err)
		}
		t.Fatalf("New(%d): %v (set VBENCH_ALLOW_NO_URING=1 to skip where io_uring is disabled)", entries, err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// tcpPair returns the two ends of a loopback TCP connection, closed when
// the test ends.
func tcpPair(t testing.TB) (client, server *net.TCPConn) {
	t.Helper()
	ln, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer ln.Close()
	type accepted struct {
		c   *net.TCPConn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.AcceptTCP()
		ch <- accepted{c, err}
	}()
	client, err = net.DialTCP("tcp4", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	a := <-ch
	if a.err != nil {
		client.Close()
		t.Fatalf("accept: %v", a.err)
	}
	server = a.c
	t.Cleanup(func() {
		client.Close()
		server.Close()
	})
	return client, server
}

// rawFD returns c's socket descriptor. The caller keeps c alive
// (runtime.KeepAlive) for as long as it uses the descriptor.
func rawFD(t testing.TB, c *net.TCPConn) int {
	t.Helper()
	sc, err := c.SyscallConn()
	if err != nil {
		t.Fatalf("SyscallConn: %v", err)
	}
	fd := -1
	if err := sc.Control(func(s uintptr) { fd = int(s) }); err != nil {
		t.Fatalf("Control: %v", err)
	}
	return fd
}

func setsockopt(t *testing.T, fd, level, opt, v int) {
	t.Helper()
	if err := syscall.SetsockoptInt(fd, level, opt, v); err != nil {
		t.Fatalf("setsockopt(%d, %d, %d): %v", level, opt, v, err)
	}
}

// reapN collects exactly n completions, waiting for the missing ones; the
// caller knows that n will come.
func reapN(t *testing.T, r *Ring, n int) []Completion {
	t.Helper()
	var got []Completion
	for {
		r.Reap(func(c Completion) { got = append(got, c) })
		if len(got) >= n {
			break
		}
		if _, err := r.SubmitAndWait(uint32(n - len(got))); err != nil {
			t.Fatalf("SubmitAndWait(%d): %v", n-len(got), err)
		}
	}
	if len(got) != n {
		t.Fatalf("reaped %d completions, want %d: %+v", len(got), n, got)
	}
	return got
}

// heapBytes returns a heap copy of b: memory a queued operation points to
// must not be on a goroutine stack, which moves when it grows.
//
//go:noinline
func heapBytes(b []byte) []byte {
	h := make([]byte, len(b))
	copy(h, b)
	return h
}

// recvOp is the memory a queued recvmsg points to, on the heap.
type recvOp struct {
	msg syscall.Msghdr
	iov syscall.Iovec
	buf []byte
	oob []byte
}

//go:noinline
func newRecvOp(size, oob int) *recvOp {
	o := &recvOp{buf: make([]byte, size)}
	o.iov.Base = &o.buf[0]
	o.iov.SetLen(size)
	o.msg.Iov = &o.iov
	o.msg.Iovlen = 1
	if oob > 0 {
		o.oob = make([]byte, oob)
		o.msg.Control = &o.oob[0]
		o.msg.SetControllen(oob)
	}
	return o
}

func errnoRes(e syscall.Errno) int32 { return -int32(e) }

func TestNewRoundsEntries(t *testing.T) {
	for _, tc := range []struct {
		entries uint32
		free    int
	}{
		{1, 1}, {2, 2}, {3, 4}, {4, 4}, {5, 8}, {64, 64}, {100, 128},
	} {
		t.Run(fmt.Sprint(tc.entries), func(t *testing.T) {
			r := newRing(t, tc.entries)
			if got := r.Free(); got != tc.free {
				t.Errorf("New(%d).Free() = %d, want %d", tc.entries, got, tc.free)
			}
			if got := len(r.cqes); got != 2*tc.free {
				t.Errorf("New(%d): %d completion entries, want %d", tc.entries, got, 2*tc.free)
			}
		})
	}
}

func TestPrepSendBatch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		conns int
		msgs  int // per connection
		size  int
		flags uint32
	}{
		{"one", 1, 1, 1, 0},
		{"3x4 small", 3, 4, 37, 0},
		{"4x3 dontwait", 4, 3, 230, syscall.MSG_DONTWAIT | syscall.MSG_NOSIGNAL},
		{"2x8 4KiB", 2, 8, 4096, syscall.MSG_NOSIGNAL},
		{"8x1 nosignal", 8, 1, 100, syscall.MSG_NOSIGNAL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.conns * tc.msgs
			r := newRing(t, uint32(n))
			size := r.Free() // n rounded up to a power of two
			clients := make([]*net.TCPConn, tc.conns)
			servers := make([]*net.TCPConn, tc.conns)
			fds := make([]int, tc.conns)
			for i := range clients {
				clients[i], servers[i] = tcpPair(t)
				fds[i] = rawFD(t, clients[i])
			}
			// Each message is distinct: connection, index and a filler.
			msgs := make([][][]byte, tc.conns)
			want := map[uint64]int{} // userData → length
			for c := range msgs {
				for m := 0; m < tc.msgs; m++ {
					b := bytes.Repeat([]byte{byte('a' + (c*tc.msgs+m)%26)}, tc.size)
					copy(b, fmt.Sprintf("%d.%d|", c, m))
					b = heapBytes(b[:tc.size])
					msgs[c] = append(msgs[c], b)
				}
			}
			// Interleave the connections in the submission.
			for m := 0; m < tc.msgs; m++ {
				for c := range msgs {
					ud := uint64(1000*c + m + 1)
					if err := r.PrepSend(fds[c], msgs[c][m], tc.flags, ud); err != nil {
						t.Fatalf("PrepSend(conn %d, msg %d): %v", c, m, err)
					}
					want[ud] = tc.size
				}
			}
			if free := r.Free(); free != size-n {
				t.Errorf("Free() after %d preps on a ring of %d = %d, want %d", n, size, free, size-n)
			}
			took, err := r.SubmitAndWait(uint32(n))
			if err != nil || took != n {
				t.Fatalf("SubmitAndWait(%d) = %d, %v; want %d, nil", n, took, err, n)
			}
			for _, c := range reapN(t, r, n) {
				size, ok := want[c.UserData]
				if !ok {
					t.Errorf("completion with unexpected or repeated UserData %d: %+v", c.UserData, c)
					continue
				}
				delete(want, c.UserData)
				if c.Res != int32(size) {
					t.Errorf("send %d: Res = %d, want %d", c.UserData, c.Res, size)
				}
			}
			if len(want) != 0 {
				t.Errorf("no completion for UserData %v", want)
			}
			if got := r.Reap(func(c Completion) { t.Errorf("extra completion %+v", c) }); got != 0 {
				t.Errorf("Reap after all completions = %d, want 0", got)
			}
			// The peers read exactly what was sent, in order, and nothing more.
			for c := range clients {
				runtime.KeepAlive(clients[c])
				if err := clients[c].CloseWrite(); err != nil {
					t.Fatalf("CloseWrite: %v", err)
				}
				got, err := io.ReadAll(servers[c])
				if err != nil {
					t.Fatalf("conn %d: read: %v", c, err)
				}
				if w := bytes.Join(msgs[c], nil); !bytes.Equal(got, w) {
					t.Errorf("conn %d: peer read %d bytes %.40q..., want %d bytes %.40q...", c, len(got), got, len(w), w)
				}
			}
			if r.Free() != size {
				t.Errorf("Free() after Submit = %d, want %d", r.Free(), size)
			}
		})
	}
}

func TestPrepSendFullBuffer(t *testing.T) {
	r := newRing(t, 8)
	client, server := tcpPair(t)
	fd := rawFD(t, client)
	setsockopt(t, fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096)
	setsockopt(t, rawFD(t, server), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)

	// chunk holds the stream's bytes from offset sent on: byte i of the
	// stream is i%251, a pattern that no chunk boundary aligns with.
	sent, eagain, short := 0, false, false
	chunk := heapBytes(make([]byte, 16<<10))
	fill := func() {
		for i := range chunk {
			chunk[i] = byte((sent + i) % 251)
		}
	}
	const flags = syscall.MSG_DONTWAIT | syscall.MSG_NOSIGNAL
	fill()
	for i := 0; !eagain && i < 10000; i++ {
		if err := r.PrepSend(fd, chunk, flags, uint64(i)); err != nil {
			t.Fatalf("PrepSend: %v", err)
		}
		// MSG_DONTWAIT: the send completes (or fails) within the submission.
		if took, err := r.Submit(); err != nil || took != 1 {
			t.Fatalf("Submit() = %d, %v; want 1, nil", took, err)
		}
		c := reapN(t, r, 1)[0]
		switch {
		case c.UserData != uint64(i):
			t.Fatalf("completion UserData = %d, want %d", c.UserData, i)
		case c.Res == errnoRes(syscall.EAGAIN):
			eagain = true
		case c.Res < 0:
			t.Fatalf("send %d: Res = %d (%v), want a count or -EAGAIN", i, c.Res, syscall.Errno(-c.Res))
		case c.Res == 0 || int(c.Res) > len(chunk):
			t.Fatalf("send %d: Res = %d, want 1..%d", i, c.Res, len(chunk))
		default:
			if int(c.Res) < len(chunk) {
				short = true
			}
			// Continue the stream where the kernel stopped: the peer
			// must see one unbroken pattern.
			sent += int(c.Res)
			fill()
		}
	}
	if !eagain {
		t.Fatalf("sent %d bytes (short counts: %v) to a peer that never reads without -EAGAIN", sent, short)
	}
	t.Logf("socket full after %d bytes (a short count first: %v)", sent, short)

	// The peer gets exactly the bytes the completions counted.
	runtime.KeepAlive(client)
	if err := client.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(server)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != sent {
		t.Fatalf("peer read %d bytes, completions counted %d", len(got), sent)
	}
	for i, b := range got {
		if b != byte(i%251) {
			t.Fatalf("peer byte %d = %d, want %d", i, b, i%251)
		}
	}
}

func TestPrepRecvmsg(t *testing.T) {
	for _, tc := range []struct {
		name      string
		timestamp bool // SO_TIMESTAMPNS
		oob       int  // control buffer
		data      string
	}{
		{"timestampns", true, 64, "hello, ring"},
		{"timestampns 1 byte", true, 64, "x"},
		{"no timestamp", false, 64, "no control message"},
		{"no control buffer", false, 0, "plain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRing(t, 4)
			client, server := tcpPair(t)
			fd := rawFD(t, client)
			if tc.timestamp {
				// Have the host's timestamping switched on already: the
				// kernel turns it on in a worker after the setsockopt, and
				// TCP reports no time for data that beat the worker.
				if err := rxtime.KeepOn(); err != nil {
					t.Fatalf("rxtime.KeepOn: %v", err)
				}
				setsockopt(t, fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
			}
			o := newRecvOp(256, tc.oob)
			const ud = 0xfeedface_00000001
			if err := r.PrepRecvmsg(fd, &o.msg, 0, ud); err != nil {
				t.Fatalf("PrepRecvmsg: %v", err)
			}
			if took, err := r.Submit(); err != nil || took != 1 {
				t.Fatalf("Submit() = %d, %v; want 1, nil", took, err)
			}
			if n := r.Reap(func(c Completion) { t.Errorf("completion before the peer wrote: %+v", c) }); n != 0 {
				t.Fatalf("Reap before the peer wrote = %d, want 0", n)
			}
			if _, err := server.Write([]byte(tc.data)); err != nil {
				t.Fatalf("peer write: %v", err)
			}
			if _, err := r.SubmitAndWait(1); err != nil {
				t.Fatalf("SubmitAndWait(1): %v", err)
			}
			var got []Completion
			r.Reap(func(c Completion) { got = append(got, c) })
			now := time.Now()
			runtime.KeepAlive(client)
			runtime.KeepAlive(o)
			if len(got) != 1 {
				t.Fatalf("SubmitAndWait(1) returned with %d completions ready, want 1: %+v", len(got), got)
			}
			c := got[0]
			if c.UserData != ud {
				t.Errorf("UserData = %#x, want %#x", c.UserData, uint64(ud))
			}
			if c.Res != int32(len(tc.data)) {
				t.Fatalf("Res = %d, want %d", c.Res, len(tc.data))
			}
			if s := string(o.buf[:c.Res]); s != tc.data {
				t.Errorf("buffer = %q, want %q", s, tc.data)
			}
			if o.msg.Flags&syscall.MSG_CTRUNC != 0 {
				t.Errorf("msg_flags = %#x: control message truncated", o.msg.Flags)
			}
			if !tc.timestamp {
				if o.msg.Controllen != 0 {
					t.Errorf("msg_controllen = %d without SO_TIMESTAMPNS, want 0", o.msg.Controllen)
				}
				return
			}
			if o.msg.Controllen == 0 || int(o.msg.Controllen) > len(o.oob) {
				t.Fatalf("msg_controllen = %d, want 1..%d", o.msg.Controllen, len(o.oob))
			}
			cmsgs, err := syscall.ParseSocketControlMessage(o.oob[:o.msg.Controllen])
			if err != nil {
				t.Fatalf("ParseSocketControlMessage(%x): %v", o.oob[:o.msg.Controllen], err)
			}
			var ts *syscall.Timespec
			for _, m := range cmsgs {
				if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SCM_TIMESTAMPNS {
					if len(m.Data) < int(unsafe.Sizeof(syscall.Timespec{})) {
						t.Fatalf("SCM_TIMESTAMPNS with %d bytes", len(m.Data))
					}
					ts = (*syscall.Timespec)(unsafe.Pointer(&m.Data[0]))
				}
			}
			if ts == nil {
				t.Fatalf("no SCM_TIMESTAMPNS among %d control messages: %+v", len(cmsgs), cmsgs)
			}
			at := time.Unix(ts.Unix())
			if d := now.Sub(at); d < -time.Second || d > time.Second {
				t.Errorf("SCM_TIMESTAMPNS %v is %v from now %v, want within a second", at, d, now)
			}
		})
	}
}

func TestPrepRecvmsgEOF(t *testing.T) {
	for _, tc := range []struct {
		name        string
		closeBefore bool // the peer closes before the recvmsg is queued
	}{
		{"closed before queued", true},
		{"closed while queued", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRing(t, 4)
			client, server := tcpPair(t)
			fd := rawFD(t, client)
			if tc.closeBefore {
				server.Close()
			}
			o := newRecvOp(64, 64)
			if err := r.PrepRecvmsg(fd, &o.msg, 0, 7); err != nil {
				t.Fatalf("PrepRecvmsg: %v", err)
			}
			if took, err := r.Submit(); err != nil || took != 1 {
				t.Fatalf("Submit() = %d, %v; want 1, nil", took, err)
			}
			if !tc.closeBefore {
				server.Close()
			}
			c := reapN(t, r, 1)[0]
			runtime.KeepAlive(client)
			runtime.KeepAlive(o)
			if c.UserData != 7 || c.Res != 0 {
				t.Errorf("completion = %+v, want UserData 7, Res 0 (EOF)", c)
			}
		})
	}
}

func TestPrepCancel(t *testing.T) {
	r := newRing(t, 4)
	client, _ := tcpPair(t) // the peer never writes
	fd := rawFD(t, client)
	o := newRecvOp(64, 64)
	const recvUD, cancelUD = 11, 12
	if err := r.PrepRecvmsg(fd, &o.msg, 0, recvUD); err != nil {
		t.Fatalf("PrepRecvmsg: %v", err)
	}
	if took, err := r.Submit(); err != nil || took != 1 {
		t.Fatalf("Submit() = %d, %v; want 1, nil", took, err)
	}
	if n := r.Reap(func(c Completion) { t.Errorf("completion before cancel: %+v", c) }); n != 0 {
		t.Fatalf("Reap before cancel = %d, want 0", n)
	}
	if err := r.PrepCancel(recvUD, cancelUD); err != nil {
		t.Fatalf("PrepCancel: %v", err)
	}
	got := map[uint64]int32{}
	for _, c := range reapN(t, r, 2) {
		if _, dup := got[c.UserData]; dup {
			t.Errorf("UserData %d completed twice", c.UserData)
		}
		got[c.UserData] = c.Res
	}
	runtime.KeepAlive(client)
	runtime.KeepAlive(o)
	if res, ok := got[recvUD]; !ok || res != errnoRes(syscall.ECANCELED) {
		t.Errorf("recvmsg completion: Res %d (present %v), want %d (-ECANCELED)", res, ok, errnoRes(syscall.ECANCELED))
	}
	if res, ok := got[cancelUD]; !ok || res != 0 {
		t.Errorf("cancel completion: Res %d (present %v), want 0", res, ok)
	}

	// Cancelling what is no longer in flight finds nothing.
	if err := r.PrepCancel(recvUD, cancelUD+1); err != nil {
		t.Fatalf("PrepCancel: %v", err)
	}
	if c := reapN(t, r, 1)[0]; c.UserData != cancelUD+1 || c.Res != errnoRes(syscall.ENOENT) {
		t.Errorf("cancel of a completed operation = %+v, want UserData %d, Res %d (-ENOENT)", c, cancelUD+1, errnoRes(syscall.ENOENT))
	}
}

func TestErrFull(t *testing.T) {
	r := newRing(t, 4)
	if got := r.Free(); got != 4 {
		t.Fatalf("New(4).Free() = %d, want 4", got)
	}
	for round := 0; round < 3; round++ {
		for i := 0; i < 4; i++ {
			if err := r.PrepCancel(1<<40+uint64(i), uint64(100*round+i)); err != nil {
				t.Fatalf("round %d: PrepCancel %d: %v", round, i, err)
			}
			if got, want := r.Free(), 3-i; got != want {
				t.Errorf("round %d: Free() after %d preps = %d, want %d", round, i+1, got, want)
			}
		}
		if err := r.PrepCancel(1<<41, 999); !errors.Is(err, ErrFull) {
			t.Fatalf("round %d: PrepCancel on a full queue = %v, want ErrFull", round, err)
		}
		if err := r.PrepSend(0, []byte{1}, 0, 999); !errors.Is(err, ErrFull) {
			t.Fatalf("round %d: PrepSend on a full queue = %v, want ErrFull", round, err)
		}
		if err := r.PrepRecvmsg(0, new(syscall.Msghdr), 0, 999); !errors.Is(err, ErrFull) {
			t.Fatalf("round %d: PrepRecvmsg on a full queue = %v, want ErrFull", round, err)
		}
		if got := r.Free(); got != 0 {
			t.Errorf("round %d: Free() on a full queue = %d, want 0", round, got)
		}
		took, err := r.Submit()
		if err != nil || took != 4 {
			t.Fatalf("round %d: Submit() = %d, %v; want 4, nil", round, took, err)
		}
		if got := r.Free(); got != 4 {
			t.Errorf("round %d: Free() after Submit = %d, want 4", round, got)
		}
		seen := map[uint64]bool{}
		for _, c := range reapN(t, r, 4) {
			if c.UserData < uint64(100*round) || c.UserData >= uint64(100*round+4) || seen[c.UserData] {
				t.Errorf("round %d: unexpected completion %+v", round, c)
			}
			seen[c.UserData] = true
			if c.Res != errnoRes(syscall.ENOENT) {
				t.Errorf("round %d: cancel of nothing: Res = %d, want %d (-ENOENT)", round, c.Res, errnoRes(syscall.ENOENT))
			}
		}
	}
}

func TestDiscard(t *testing.T) {
	r := newRing(t, 4)
	for i := 0; i < 3; i++ {
		if err := r.PrepCancel(1<<40, uint64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.Discard(); n != 3 {
		t.Errorf("Discard() = %d, want 3", n)
	}
	if got := r.Free(); got != 4 {
		t.Errorf("Free() after Discard = %d, want 4", got)
	}
	if took, err := r.Submit(); err != nil || took != 0 {
		t.Errorf("Submit() after Discard = %d, %v; want 0, nil", took, err)
	}
	if err := r.PrepCancel(1<<40, 42); err != nil {
		t.Fatal(err)
	}
	if c := reapN(t, r, 1)[0]; c.UserData != 42 || c.Res != errnoRes(syscall.ENOENT) {
		t.Errorf("completion after Discard = %+v, want UserData 42, Res -ENOENT", c)
	}
	if n := r.Reap(func(c Completion) { t.Errorf("discarded operation completed: %+v", c) }); n != 0 {
		t.Errorf("Reap = %d, want 0", n)
	}
}

func TestCloseTwice(t *testing.T) {
	r := newRing(t, 4)
	if err := r.PrepCancel(1<<40, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Submit(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("first Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close = %v, want nil", err)
	}
	// newRing's cleanup closes it a third time.
}

// SubmitAndWait waits for its completions even when the kernel takes the
// queue in parts: an operation that fails as it is taken (too many iovecs)
// completes at once, and the call must still wait for the other.
func TestSubmitAndWaitPartialSubmit(t *testing.T) {
	r := newRing(t, 4)
	client, server := tcpPair(t)
	fd := rawFD(t, client)
	bad := newRecvOp(64, 0)
	bad.msg.Iovlen = 2000 // more than UIO_MAXIOV: -EMSGSIZE when taken
	good := newRecvOp(64, 0)
	if err := r.PrepRecvmsg(fd, &bad.msg, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.PrepRecvmsg(fd, &good.msg, 0, 2); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, _ = server.Write([]byte("late"))
	}()
	if _, err := r.SubmitAndWait(2); err != nil {
		t.Fatal(err)
	}
	var got []Completion
	r.Reap(func(c Completion) { got = append(got, c) })
	if len(got) < 2 {
		t.Errorf("SubmitAndWait(2) returned with %d completions ready: %+v", len(got), got)
		reapN(t, r, 2-len(got))
	}
	runtime.KeepAlive(client)
	runtime.KeepAlive(bad)
	runtime.KeepAlive(good)
}

// A signal that interrupts the wait does not end it early.
func TestSubmitAndWaitSignal(t *testing.T) {
	r := newRing(t, 4)
	client, server := tcpPair(t)
	fd := rawFD(t, client)
	o := newRecvOp(64, 0)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid, pid := syscall.Gettid(), syscall.Getpid()
	if err := r.PrepRecvmsg(fd, &o.msg, 0, 1); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range 20 {
			time.Sleep(2 * time.Millisecond)
			_ = syscall.Tgkill(pid, tid, syscall.SIGURG)
		}
		_, _ = server.Write([]byte("late"))
	}()
	if _, err := r.SubmitAndWait(1); err != nil {
		t.Fatal(err)
	}
	if n := r.Reap(func(Completion) {}); n < 1 {
		t.Errorf("SubmitAndWait(1) returned with %d completions ready", n)
		reapN(t, r, 1-n)
	}
	runtime.KeepAlive(client)
	runtime.KeepAlive(o)
}

// SubmitAndWaitTimeout returns after its timeout with nothing ready, and
// at once when enough is.
func TestSubmitAndWaitTimeout(t *testing.T) {
	r := newRing(t, 4)
	client, server := tcpPair(t)
	fd := rawFD(t, client)
	o := newRecvOp(64, 0)
	if err := r.PrepRecvmsg(fd, &o.msg, 0, 1); err != nil {
		t.Fatal(err)
	}
	if took, err := r.SubmitAndWaitTimeout(1, 5*time.Millisecond); err != nil || took != 1 {
		t.Fatalf("SubmitAndWaitTimeout with nothing to read: took %d, %v", took, err)
	}
	if n := r.Reap(func(Completion) {}); n != 0 {
		t.Fatalf("%d completions with nothing to read", n)
	}
	if _, err := server.Write([]byte("now")); err != nil {
		t.Fatal(err)
	}
	for r.ready() == 0 {
		if _, err := r.SubmitAndWaitTimeout(1, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	var got Completion
	r.Reap(func(c Completion) { got = c })
	if got.UserData != 1 || got.Res != 3 {
		t.Errorf("completion %+v, want user data 1 and 3 bytes", got)
	}
	runtime.KeepAlive(client)
	runtime.KeepAlive(o)
}
