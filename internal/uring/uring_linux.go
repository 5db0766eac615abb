package uring

import (
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// The io_uring ABI (include/uapi/linux/io_uring.h).
const (
	sysSetup = 425 // io_uring_setup, the same number on every architecture
	sysEnter = 426 // io_uring_enter

	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000

	enterGetEvents = 1 << 0
	enterExtArg    = 1 << 3

	featSingleMmap = 1 << 0

	opPollAdd     = 6
	opRecvmsg     = 10
	opAsyncCancel = 14
	opRead        = 22
	opSend        = 26

	sqeSize = 64
	cqeSize = 16
)

type sqOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqOffsets
	cqOff                                                                  cqOffsets
}

// sqe is a submission queue entry.
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	opFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad         uint64
}

// cqe is a completion queue entry.
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// Ring is an io_uring instance with its queues mapped.
type Ring struct {
	fd int

	sqHead, sqTail *uint32
	sqMask         uint32
	sqArray        []uint32
	sqes           []sqe
	queued         uint32 // entries prepared since the last Submit

	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []cqe

	maps [][]byte

	features uint32 // IORING_FEAT_* the kernel offers

	// The timeout of SubmitAndWaitTimeout: the kernel reads it through a
	// pointer, so it lives here, on the heap, not on a goroutine stack
	// that may move.
	waitTS  syscall.Timespec
	waitArg getEventsArg
}

// FeatExtArg is IORING_FEAT_EXT_ARG: io_uring_enter takes a timeout
// (Linux 5.11), which SubmitAndWaitTimeout needs.
const FeatExtArg = 1 << 8

// Features returns the IORING_FEAT_* flags the kernel reported.
func (r *Ring) Features() uint32 { return r.features }

// Setup flags for NewWithFlags (IORING_SETUP_*).
const (
	// SetupCoopTaskrun: the kernel does not interrupt the ring's task
	// to run completion work; it runs at the task's next system call.
	SetupCoopTaskrun = 1 << 8
	// SetupSingleIssuer: one thread (the one that set the ring up)
	// submits every operation.
	SetupSingleIssuer = 1 << 12
	// SetupDeferTaskrun: completion work waits until the submitting
	// thread asks for completions (with SetupSingleIssuer).
	SetupDeferTaskrun = 1 << 13
)

// New sets up a ring with room for at least entries queued operations (the
// kernel rounds up to a power of two) and twice as many completions.
func New(entries uint32) (*Ring, error) { return NewWithFlags(entries, 0) }

// NewWithFlags is New with setup flags (Setup*); with SetupSingleIssuer
// only the calling thread may submit (lock it: runtime.LockOSThread).
func NewWithFlags(entries, flags uint32) (*Ring, error) {
	var p params
	p.flags = flags
	fd, _, errno := syscall.Syscall(sysSetup, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, errno
	}
	r := &Ring{fd: int(fd), features: p.features}
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*cqeSize)
	single := p.features&featSingleMmap != 0
	if single {
		sqSize = max(sqSize, cqSize)
	}
	sq, err := r.mmap(offSQRing, sqSize)
	if err != nil {
		return nil, err
	}
	cq := sq
	if !single {
		if cq, err = r.mmap(offCQRing, cqSize); err != nil {
			return nil, err
		}
	}
	sqeMem, err := r.mmap(offSQEs, int(p.sqEntries)*sqeSize)
	if err != nil {
		return nil, err
	}
	r.sqHead = (*uint32)(unsafe.Pointer(&sq[p.sqOff.head]))
	r.sqTail = (*uint32)(unsafe.Pointer(&sq[p.sqOff.tail]))
	r.sqMask = *(*uint32)(unsafe.Pointer(&sq[p.sqOff.ringMask]))
	r.sqArray = unsafe.Slice((*uint32)(unsafe.Pointer(&sq[p.sqOff.array])), p.sqEntries)
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&sqeMem[0])), p.sqEntries)
	r.cqHead = (*uint32)(unsafe.Pointer(&cq[p.cqOff.head]))
	r.cqTail = (*uint32)(unsafe.Pointer(&cq[p.cqOff.tail]))
	r.cqMask = *(*uint32)(unsafe.Pointer(&cq[p.cqOff.ringMask]))
	r.cqes = unsafe.Slice((*cqe)(unsafe.Pointer(&cq[p.cqOff.cqes])), p.cqEntries)
	return r, nil
}

// mmap maps one of the ring's regions; on failure it unmaps what was
// mapped and closes the ring.
func (r *Ring) mmap(off int64, size int) ([]byte, error) {
	b, err := syscall.Mmap(r.fd, off, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	r.maps = append(r.maps, b)
	return b, nil
}

// Close unmaps the queues and closes the ring. Operations still in flight
// are cancelled by the kernel; their memory must stay untouched until then,
// so close a ring only once nothing is in flight.
func (r *Ring) Close() error {
	for _, b := range r.maps {
		_ = syscall.Munmap(b)
	}
	r.maps = nil
	r.sqes, r.sqArray, r.cqes = nil, nil, nil
	if r.fd < 0 {
		return nil
	}
	err := syscall.Close(r.fd)
	r.fd = -1
	return err
}

// Free returns how many more operations can be queued before Submit.
func (r *Ring) Free() int {
	return len(r.sqes) - int(atomic.LoadUint32(r.sqTail)-atomic.LoadUint32(r.sqHead))
}

// next returns the next free submission entry, zeroed, or nil.
func (r *Ring) next() *sqe {
	tail := atomic.LoadUint32(r.sqTail)
	if int(tail-atomic.LoadUint32(r.sqHead)) >= len(r.sqes) {
		return nil
	}
	i := tail & r.sqMask
	r.sqArray[i] = i
	e := &r.sqes[i]
	*e = sqe{}
	return e
}

// push publishes the entry next returned.
func (r *Ring) push() {
	atomic.StoreUint32(r.sqTail, atomic.LoadUint32(r.sqTail)+1)
	r.queued++
}

// PrepSend queues send(2) of b on the socket fd with flags (MSG_*). b must
// not be empty.
func (r *Ring) PrepSend(fd int, b []byte, flags uint32, userData uint64) error {
	e := r.next()
	if e == nil {
		return ErrFull
	}
	e.opcode, e.fd = opSend, int32(fd)
	e.addr, e.len = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))), uint32(len(b))
	e.opFlags, e.userData = flags, userData
	r.push()
	return nil
}

// PrepRecvmsg queues recvmsg(2) on the socket fd into msg, which the
// kernel fills in (msg_controllen and msg_flags on return).
func (r *Ring) PrepRecvmsg(fd int, msg *syscall.Msghdr, flags uint32, userData uint64) error {
	e := r.next()
	if e == nil {
		return ErrFull
	}
	e.opcode, e.fd = opRecvmsg, int32(fd)
	e.addr, e.len = uint64(uintptr(unsafe.Pointer(msg))), 1
	e.opFlags, e.userData = flags, userData
	r.push()
	return nil
}

// PrepRead queues read(2) of fd into b at the file's current position
// (for a stream such as an eventfd or a pipe).
func (r *Ring) PrepRead(fd int, b []byte, userData uint64) error {
	e := r.next()
	if e == nil {
		return ErrFull
	}
	e.opcode, e.fd = opRead, int32(fd)
	e.addr, e.len = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))), uint32(len(b))
	e.off, e.userData = ^uint64(0), userData
	r.push()
	return nil
}

// PrepPollAdd queues a one-shot poll of fd for events (POLLIN, POLLOUT,
// ...); it completes with the events that were ready.
func (r *Ring) PrepPollAdd(fd int, events uint32, userData uint64) error {
	e := r.next()
	if e == nil {
		return ErrFull
	}
	e.opcode, e.fd = opPollAdd, int32(fd)
	e.opFlags, e.userData = events, userData
	r.push()
	return nil
}

// PrepCancel queues the cancellation of the operation queued with target.
// The cancelled operation completes with -ECANCELED (or with its result,
// if it completed first); the cancellation itself completes with 0,
// -ENOENT or -EALREADY under userData.
func (r *Ring) PrepCancel(target, userData uint64) error {
	e := r.next()
	if e == nil {
		return ErrFull
	}
	e.opcode, e.fd = opAsyncCancel, -1
	e.addr, e.userData = target, userData
	r.push()
	return nil
}

// Submit submits the queued operations without waiting and returns how
// many the kernel took. An operation that can complete at once (a send
// with MSG_DONTWAIT does) has completed when Submit returns. On an error
// the kernel took none of the rest: Discard them, or Submit again.
func (r *Ring) Submit() (int, error) { return r.SubmitAndWait(0) }

// SubmitAndWait submits the queued operations and then waits until at
// least wait completions are ready to reap; the caller must know that many
// will come (operations in flight, or queued now). It retries on EINTR and
// returns how many operations the kernel took.
func (r *Ring) SubmitAndWait(wait uint32) (int, error) {
	total := 0
	for {
		n := r.queued
		flags := uintptr(0)
		if wait > 0 && r.ready() < wait {
			flags = enterGetEvents
		} else if n == 0 {
			return total, nil
		}
		// The kernel may take only part of the queue, or come back
		// early (a signal) with a count: loop until both are done.
		got, _, errno := syscall.Syscall6(sysEnter, uintptr(r.fd), uintptr(n), uintptr(wait), flags, 0, 0)
		switch errno {
		case 0:
			took := min(uint32(got), n)
			r.queued -= took
			total += int(took)
			if n > 0 && took == 0 {
				return total, syscall.EAGAIN // the kernel took nothing: do not spin
			}
		case syscall.EINTR:
		default:
			return total, errno
		}
	}
}

// ready returns how many completions wait to be reaped.
func (r *Ring) ready() uint32 {
	return atomic.LoadUint32(r.cqTail) - atomic.LoadUint32(r.cqHead)
}

// getEventsArg is struct io_uring_getevents_arg.
type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWaitUs uint32
	ts        uint64
}

// SubmitAndWaitTimeout is SubmitAndWait that stops waiting once timeout
// has passed, even with fewer than wait completions ready (then it returns
// no error).
//
// It waits in a raw system call: the goroutine keeps its processor (Go's
// P) while the kernel waits, so it goes on the moment its completions are
// ready, instead of queueing for a processor behind every runnable
// goroutine (a burst of a thousand new requests makes that milliseconds).
// Keep the timeout short, and let the caller have a processor of its own
// (package ringnet raises GOMAXPROCS for its pollers).
func (r *Ring) SubmitAndWaitTimeout(wait uint32, timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	r.waitArg = getEventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.waitTS)))}
	total := 0
	for {
		n := r.queued
		left := time.Until(deadline)
		if left <= 0 || r.ready() >= wait {
			if n == 0 {
				return total, nil
			}
			left = 0
		}
		r.waitTS = syscall.NsecToTimespec(int64(left))
		got, _, errno := syscall.RawSyscall6(sysEnter, uintptr(r.fd), uintptr(n), uintptr(wait), enterGetEvents|enterExtArg, uintptr(unsafe.Pointer(&r.waitArg)), unsafe.Sizeof(r.waitArg))
		switch errno {
		case 0:
			took := min(uint32(got), n)
			r.queued -= took
			total += int(took)
			if n > 0 && took == 0 {
				return total, syscall.EAGAIN
			}
		case syscall.ETIME:
			if r.queued == 0 {
				return total, nil
			}
		case syscall.EINTR:
		default:
			return total, errno
		}
	}
}

// Discard drops the operations queued since the last submission and
// returns how many there were.
func (r *Ring) Discard() int {
	n := r.queued
	atomic.StoreUint32(r.sqTail, atomic.LoadUint32(r.sqTail)-n)
	r.queued = 0
	return int(n)
}

// Reap calls fn for every completion ready now and returns how many there
// were. fn may queue new operations.
func (r *Ring) Reap(fn func(Completion)) int {
	head := atomic.LoadUint32(r.cqHead)
	tail := atomic.LoadUint32(r.cqTail)
	n := 0
	for ; head != tail; head++ {
		c := r.cqes[head&r.cqMask]
		atomic.StoreUint32(r.cqHead, head+1)
		fn(Completion{UserData: c.userData, Res: c.res, Flags: c.flags})
		n++
	}
	return n
}
