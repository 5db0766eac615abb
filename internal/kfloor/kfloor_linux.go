package kfloor

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"time"
	"unsafe"
)

// warmRounds are the rounds Measure makes before it counts: a new
// connection's receiver acknowledges its first segments at once (quick-ACK
// mode), which makes them dearer than a long stream's. cpuWarmRounds are
// those it makes on each further CPU, whose caches are cold.
const (
	warmRounds    = 16
	cpuWarmRounds = 2
)

// Measure writes one event on each of conns loopback connections and then
// reads each back, rounds times, on one OS thread, so every read finds
// exactly one event, and times nullCalls null system calls; it reports
// the thread's CPU time per operation, the median over the rounds (so
// that a round the hypervisor or another process interrupted does not
// count). It does so on each CPU the process may run on, the thread bound
// to it, when there are 2 to MaxCPUs of them and the thread may be bound;
// otherwise once, wherever the thread runs. The connections are closed
// when it returns.
func Measure(conns, rounds, nullCalls int) (Floor, error) {
	if conns < 1 || rounds < 1 || nullCalls < 1 {
		return Floor{}, errors.New("kfloor: conns, rounds and nullCalls must be positive")
	}
	type result struct {
		f   Floor
		err error
	}
	done := make(chan result, 1)
	go func() {
		// Never unlocked: the thread, whose CPU affinity measure changes,
		// ends with this goroutine instead of serving others.
		runtime.LockOSThread()
		f, err := measure(conns, rounds, nullCalls)
		done <- result{f, err}
	}()
	r := <-done
	return r.f, r.err
}

// measure is Measure on its own locked thread.
func measure(conns, rounds, nullCalls int) (Floor, error) {
	var f Floor
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
	m := &meter{w: w, r: r, buf: make([]byte, 4096), oob: make([]byte, 128)}
	if _, err := m.rounds(warmRounds); err != nil {
		return f, err
	}
	f.Events = conns * rounds
	cpus, err := allowedCPUs()
	if err != nil || len(cpus) > MaxCPUs || len(cpus) < 2 {
		f.Costs, err = m.costs(rounds, nullCalls)
		return f, err
	}
	for _, cpu := range cpus {
		if err := bindTo(cpu); err != nil { // not allowed here: measure once, where the thread is
			f.PerCPU = nil
			f.Costs, err = m.costs(rounds, nullCalls)
			return f, err
		}
		if _, err := m.rounds(cpuWarmRounds); err != nil {
			return f, err
		}
		c, err := m.costs(rounds, nullCalls)
		if err != nil {
			return f, err
		}
		f.PerCPU = append(f.PerCPU, CPUCosts{CPU: cpu, Costs: c})
	}
	f.Costs = cheapest(f.PerCPU)
	return f, nil
}

// meter writes and reads events on its connections.
type meter struct {
	w, r     []int
	buf, oob []byte
}

// costs times nullCalls null system calls and rounds rounds of events.
func (m *meter) costs(rounds, nullCalls int) (Costs, error) {
	var c Costs
	c0, err := threadCPU()
	if err != nil {
		return c, err
	}
	for range nullCalls {
		syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0)
	}
	c1, err := threadCPU()
	if err != nil {
		return c, err
	}
	c.Syscall = (c1 - c0) / time.Duration(nullCalls)
	per, err := m.rounds(rounds)
	if err != nil {
		return c, err
	}
	n := time.Duration(len(m.w))
	c.Write, c.Recvmsg = median(per[0])/n, median(per[1])/n
	return c, nil
}

// rounds writes one event on every connection and then reads each back,
// n times, and returns the thread's CPU time of each round's writes
// (per[0]) and reads (per[1]).
func (m *meter) rounds(n int) (per [2][]time.Duration, err error) {
	for range n {
		c0, _ := threadCPU()
		for _, fd := range m.w {
			if _, err := syscall.Write(fd, Event); err != nil {
				return per, fmt.Errorf("kfloor: write: %w", err)
			}
		}
		c1, _ := threadCPU()
		for _, fd := range m.r {
			got, _, _, _, err := syscall.Recvmsg(fd, m.buf, m.oob, 0)
			if err != nil {
				return per, fmt.Errorf("kfloor: recvmsg: %w", err)
			}
			if got != len(Event) {
				return per, fmt.Errorf("kfloor: read %d bytes of an event of %d", got, len(Event))
			}
		}
		c2, err := threadCPU()
		if err != nil {
			return per, err
		}
		per[0], per[1] = append(per[0], c1-c0), append(per[1], c2-c1)
	}
	return per, nil
}

// cpuMask is a CPU set as sched_getaffinity(2) takes it (1024 CPUs).
type cpuMask [16]uint64

// allowedCPUs returns the CPUs the calling thread may run on, in order.
func allowedCPUs() ([]int, error) {
	var m cpuMask
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m))); e != 0 {
		return nil, fmt.Errorf("kfloor: sched_getaffinity: %w", e)
	}
	var cpus []int
	for i, word := range m {
		for b := range 64 {
			if word&(1<<b) != 0 {
				cpus = append(cpus, i*64+b)
			}
		}
	}
	return cpus, nil
}

// bindTo binds the calling thread to cpu; it runs there when bindTo
// returns.
func bindTo(cpu int) error {
	var m cpuMask
	m[cpu/64] = 1 << (cpu % 64)
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m))); e != 0 {
		return fmt.Errorf("kfloor: binding to CPU %d: %w", cpu, e)
	}
	return nil
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
// descriptors of their server ends (w, with TCP_NODELAY, as Go's
// connections have) and client ends (r), and a function that closes them
// all. They are made with bare system calls, not package net, so that no
// poller watches them: a write to a watched socket also wakes the poller,
// which is the reader's cost, not the floor's.
func pairs(n int) (w, r []int, closeAll func(), err error) {
	var fds []int
	closeAll = func() {
		for _, fd := range fds {
			_ = syscall.Close(fd)
		}
	}
	fail := func(op string, err error) ([]int, []int, func(), error) {
		closeAll()
		return nil, nil, nil, fmt.Errorf("kfloor: %s: %w", op, err)
	}
	open := func() (int, error) {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err == nil {
			fds = append(fds, fd)
		}
		return fd, err
	}
	ln, err := open()
	if err != nil {
		return fail("socket", err)
	}
	loopback := &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	if err := syscall.Bind(ln, loopback); err != nil {
		return fail("bind", err)
	}
	if err := syscall.Listen(ln, n); err != nil {
		return fail("listen", err)
	}
	sa, err := syscall.Getsockname(ln)
	if err != nil {
		return fail("getsockname", err)
	}
	for range n {
		c, err := open()
		if err != nil {
			return fail("socket", err)
		}
		if err := syscall.Connect(c, sa); err != nil {
			return fail("connect", err)
		}
		s, _, err := syscall.Accept4(ln, syscall.SOCK_CLOEXEC)
		if err != nil {
			return fail("accept", err)
		}
		fds = append(fds, s)
		if err := syscall.SetsockoptInt(s, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1); err != nil {
			return fail("TCP_NODELAY", err)
		}
		w, r = append(w, s), append(r, c)
	}
	return w, r, closeAll, nil
}
