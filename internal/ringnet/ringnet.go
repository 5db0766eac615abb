// Package ringnet runs TCP connections on one io_uring (see package uring)
// instead of Go's network poller, for the client's hot path: reading the
// token events of many streams.
//
// With Go's poller every token event costs a goroutine wake-up, a
// recvmsg(2) and the scheduler's work around them; a system call alone
// costs about 1 µs on a virtualised host. Here one goroutine (the poller)
// keeps a recvmsg queued on every streaming connection, reaps the
// completions of all of them with one io_uring_enter(2), and hands each
// arrival to its stream's callback on the spot ([Conn.ReadEach]): no wake-up
// and no system call of its own per event. Each read keeps the kernel's
// receive timestamp (SO_TIMESTAMPNS, see package rxtime), so an event is
// timed when it reached the host, not when the poller got to it.
//
// A [Conn] is a complete net.Conn (reads and polls go through the poller,
// writes are direct non-blocking write(2)s), so a connection can carry
// every request of a keep-alive pool; [Adopt] takes a dialled TCP
// connection out of Go's poller, which would otherwise be woken by every
// arrival too. Off Linux, or where io_uring is disabled or turned off with
// VBENCH_IO_URING=0, Adopt returns nil and callers keep Go's poller.
package ringnet

import (
	"os"
	"time"
)

// enabled is false when VBENCH_IO_URING=0 turns io_uring off.
var enabled = os.Getenv("VBENCH_IO_URING") != "0"

// maxAge bounds how old a receive timestamp may be and still be believed
// (as rxtime.MaxAge).
const maxAge = 10 * time.Second
