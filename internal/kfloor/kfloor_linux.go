package kfloor

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"syscall"
	"time"
	"unsafe"
)

// warmRounds are the rounds Measure makes before it counts: a new
// connection's receiver acknowledges its first segments at once (quick-ACK
// mode), which makes them dearer than a long stream's.
const warmRounds = 16

// Measure writes one event on each of conns loopback connections and then
// reads each back, rounds times, on one locked OS thread, so every read
// finds exactly one event; it reports the thread's CPU time per
// operation, the median over the rounds (so that a round the hypervisor or
// another process interrupted does not count). It also times nullCalls null system calls. The connections
// are closed when it returns.
func Measure(conns, rounds, nullCalls int) (Floor, error) {
	if conns < 1 || rounds < 1 || nullCalls < 1 {
		return Floor{}, errors.New("kfloor: conns, rounds and nullCalls must be positive")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var f Floor
	c0, err := threadCPU()
	if err != nil {
		return f, err
	}
	for range nullCalls {
		syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0)
	}
	c1, err := threadCPU()
	if err != nil {
		return f, err
	}
	f.Syscall = (c1 - c0) / time.Duration(nullCalls)

	w, r, closeAll, err := pairs(conns)
	if err != nil {
		return f, err
	}
	defer closeAll()
	for _, fd := range r {
		if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1); err != nil {
			return f, fmt.Errorf("kfloor: SO_TIMESTAMPNS: %w", err)
		}
	}
	buf, oob := make([]byte, 4096), make([]byte, 128)
	var wcpu, rcpu []time.Duration // per round
	for round := range warmRounds + rounds {
		c0, _ := threadCPU()
		for _, fd := range w {
			if _, err := syscall.Write(fd, Event); err != nil {
				return f, fmt.Errorf("kfloor: write: %w", err)
			}
		}
		c1, _ := threadCPU()
		for _, fd := range r {
			n, _, _, _, err := syscall.Recvmsg(fd, buf, oob, 0)
			if err != nil {
				return f, fmt.Errorf("kfloor: recvmsg: %w", err)
			}
			if n != len(Event) {
				return f, fmt.Errorf("kfloor: read %d bytes of an event of %d", n, len(Event))
			}
		}
		c2, err := threadCPU()
		if err != nil {
			return f, err
		}
		if round >= warmRounds {
			wcpu, rcpu = append(wcpu, c1-c0), append(rcpu, c2-c1)
		}
	}
	f.Events = conns * rounds
	f.Write, f.Recvmsg = median(wcpu)/time.Duration(conns), median(rcpu)/time.Duration(conns)
	return f, nil
}

// median returns the median of d (the lower middle one of an even count),
// reordering d.
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[(len(d)-1)/2]
}

// threadCPU is the CPU time (user and system) of the calling OS thread,
// from CLOCK_THREAD_CPUTIME_ID: exact, where getrusage's is scaled from
// ticks and can stand still over a short stretch.
func threadCPU() (time.Duration, error) {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, fmt.Errorf("kfloor: clock_gettime: %w", e)
	}
	return time.Duration(ts.Nano()), nil
}

// pairs opens n TCP connections on loopback and returns blocking
// descriptors of their server ends (w) and client ends (r), and a function
// that closes them all.
func pairs(n int) (w, r []int, closeAll func(), err error) {
	var files []*os.File
	closeAll = func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, closeAll, fmt.Errorf("kfloor: %w", err)
	}
	defer ln.Close()
	for range n {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			closeAll()
			return nil, nil, nil, fmt.Errorf("kfloor: %w", err)
		}
		s, err := ln.Accept()
		if err != nil {
			_ = c.Close()
			closeAll()
			return nil, nil, nil, fmt.Errorf("kfloor: %w", err)
		}
		for _, conn := range []net.Conn{s, c} {
			f, err := conn.(*net.TCPConn).File() // a blocking duplicate
			_ = conn.Close()
			if err != nil {
				closeAll()
				return nil, nil, nil, fmt.Errorf("kfloor: %w", err)
			}
			files = append(files, f)
			if conn == s {
				w = append(w, int(f.Fd()))
			} else {
				r = append(r, int(f.Fd()))
			}
		}
	}
	return w, r, closeAll, nil
}
