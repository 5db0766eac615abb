// Package uring is a minimal Linux io_uring: one submission and one
// completion queue, and the three operations vbench's hot paths need (send,
// recvmsg, cancel).
//
// A system call is the dominant cost of a token event on a virtualised
// host: on the 2-core development VM a bare getpid(2) takes about 1 µs and
// a 230-byte loopback write(2) about 4 µs, while the same send queued in a
// ring with 63 others and submitted with one io_uring_enter(2) costs
// 1.6 µs. The simulator sends the events that are due together in one
// submission; the client keeps a recvmsg queued on every stream and reaps
// what arrived in one call.
//
// A Ring is not safe for concurrent use: one goroutine owns it. Memory that
// a queued operation points to (a send's bytes, a recvmsg's header, buffers
// and control buffer) must stay reachable and unchanged until its
// completion has been reaped; Go's collector does not move heap objects,
// and the owner keeps them reachable. [New] fails with
// [errors.ErrUnsupported] off Linux, and with the kernel's error where
// io_uring is disabled (kernel.io_uring_disabled, seccomp): callers then
// fall back to one system call per operation.
package uring

import "errors"

// ErrFull is returned by the Prep methods when the submission queue has no
// free entry: submit what is queued first.
var ErrFull = errors.New("uring: submission queue full")

// Completion is one reaped completion queue entry.
type Completion struct {
	UserData uint64 // the value the operation was queued with
	Res      int32  // the system call's result: a count, or a negated errno
	Flags    uint32 // IORING_CQE_F_* flags
}
