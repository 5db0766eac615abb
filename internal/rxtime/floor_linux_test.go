package rxtime

import (
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the CPU time (user and system) of the calling OS thread.
func threadCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopbackPairs opens n TCP connections on loopback and returns the
// descriptors of their server ends (w) and client ends (r), non-blocking.
func loopbackPairs(b *testing.B, n int) (w, r []int) {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	for range n {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		for _, conn := range []net.Conn{s, c} {
			f, err := conn.(*net.TCPConn).File() // a blocking duplicate
			if err != nil {
				b.Fatal(err)
			}
			conn.Close()
			fd := int(f.Fd())
			b.Cleanup(func() { f.Close() })
			if conn == s {
				w = append(w, fd)
			} else {
				r = append(r, fd)
			}
		}
	}
	return w, r
}

// event is one streamed token's SSE message, as the simulator writes it.
var event = []byte("data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" hello\",\"logprobs\":null,\"finish_reason\":null}]}\n\n")

// BenchmarkKernelFloor measures what this host's kernel charges for one
// token event on loopback TCP, the floor under the simulator's and the
// client's CPU per event: a null system call, one write(2) of an event
// (on loopback the sender's thread also delivers it to the receiver) and
// one recvmsg(2) of it with its receive timestamp, over 1000 connections.
// The figure is the calling thread's CPU time per operation
// (cpu-µs/op); an op of write+recvmsg is one event written and read.
func BenchmarkKernelFloor(b *testing.B) {
	b.Run("null-syscall", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c0 := threadCPU(b)
		for b.Loop() {
			syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0)
		}
		b.ReportMetric(float64(threadCPU(b)-c0)/1e3/float64(b.N), "cpu-µs/op")
	})
	const conns = 1000
	w, r := loopbackPairs(b, conns)
	for _, fd := range r {
		if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1); err != nil {
			b.Fatal(err)
		}
	}
	buf, oob := make([]byte, 4096), make([]byte, 128)
	// Each round writes one event on every connection, then reads each
	// back, on one thread: every read finds exactly one event. The
	// thread's CPU time is read around each half of a round.
	var wcpu, rcpu time.Duration
	events := 0
	b.Run("write+recvmsg", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		wcpu, rcpu, events = 0, 0, 0
		for events < b.N {
			c0 := threadCPU(b)
			for _, fd := range w {
				if _, err := syscall.Write(fd, event); err != nil {
					b.Fatal(err)
				}
			}
			c1 := threadCPU(b)
			for _, fd := range r {
				if _, _, _, _, err := syscall.Recvmsg(fd, buf, oob, 0); err != nil {
					b.Fatal(err)
				}
			}
			wcpu, rcpu = wcpu+c1-c0, rcpu+threadCPU(b)-c1
			events += conns
		}
		b.ReportMetric(float64(wcpu)/1e3/float64(events), "write-cpu-µs/op")
		b.ReportMetric(float64(rcpu)/1e3/float64(events), "recvmsg-cpu-µs/op")
	})
}
