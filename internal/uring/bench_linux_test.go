package uring

import (
	"fmt"
	"io"
	"runtime"
	"syscall"
	"testing"
)

// BenchmarkSend compares a stream loop's two ways of sending one 230-byte
// token event to each of 64 loopback connections (whose peers drain them):
// one write(2) each, or all 64 queued in a ring and sent with one
// io_uring_enter(2). It reports ns per send.
func BenchmarkSend(b *testing.B) {
	const conns = 64
	msg := heapBytes(make([]byte, 230))
	fds := make([]int, conns)
	for i := range fds {
		c, s := tcpPair(b)
		fds[i] = rawFD(b, s)
		go func() { _, _ = io.Copy(io.Discard, c) }()
		b.Cleanup(func() { runtime.KeepAlive(s) })
	}
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			for _, fd := range fds {
				if _, err := syscall.Write(fd, msg); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*conns), "ns/send")
	})
	b.Run("ring", func(b *testing.B) {
		r := newRing(b, conns)
		for b.Loop() {
			for i, fd := range fds {
				if err := r.PrepSend(fd, msg, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, uint64(i)); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := r.SubmitAndWait(conns); err != nil {
				b.Fatal(err)
			}
			if n := r.Reap(func(c Completion) {
				if c.Res != int32(len(msg)) {
					panic(fmt.Sprintf("send %d: %d", c.UserData, c.Res))
				}
			}); n != conns {
				b.Fatalf("%d completions", n)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*conns), "ns/send")
	})
}
