package backend

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A poller reads the bodies of many responses from one goroutine, from an
// epoll set of its own, instead of one goroutine per response parked in Go's
// network poller. It serves only connections with kernel receive
// timestamps (package rxtime): each read is stamped with when its data
// arrived, not when it was read, so the poller may let events gather for
// pollWindow between rounds and read each socket once per round. Per token
// event that costs one recvmsg and a share of an epoll_wait, where a
// goroutine per response costs two reads (the second finds nothing) and a
// goroutine wake-up.
type poller struct {
	epfd   int
	mu     sync.Mutex
	tasks  map[int32]*pollEntry
	served atomic.Int64 // tasks registered, for tests
}

// pollWindow is how long the poller lets events gather after a round that
// did not fill its event list. It is far below any inter-token latency, so
// it does not merge a stream's events into one read.
const pollWindow = 200 * time.Microsecond

// A pollTask reads the body of one response on the poller's goroutine.
type pollTask interface {
	// step reads once from the task's connection and handles what it
	// read. It returns true when the task is finished (the response is
	// complete, or failed).
	step() bool
}

// pollEntry is a task registered in a poller; the poller's mutex guards
// its flags.
type pollEntry struct {
	fd        int32
	task      pollTask
	busy      bool // the poller is running task.step
	cancelled bool // the waiter gave up while the task ran
	finished  bool // step returned true
	listed    bool // fd is in the epoll set
	done      chan struct{}
}

var thePoller struct {
	once sync.Once
	p    *poller
}

// getPoller returns the process's poller, starting it on first use, or nil
// if the kernel refuses an epoll set.
func getPoller() *poller {
	thePoller.once.Do(func() {
		fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
		if err != nil {
			return
		}
		p := &poller{epfd: fd, tasks: map[int32]*pollEntry{}}
		go p.run()
		thePoller.p = p
	})
	return thePoller.p
}

// serve reads fd with task until the task is finished or ctx ends. It
// returns true if the task finished; on false the task may have stopped
// midway, and fd is no longer watched either way. The error reports that
// fd could not be watched at all (the task never ran).
func (p *poller) serve(ctx context.Context, fd int, task pollTask) (bool, error) {
	e := &pollEntry{fd: int32(fd), task: task, done: make(chan struct{}, 1)}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: int32(fd)}
	p.mu.Lock()
	if err := syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		p.mu.Unlock()
		return false, err
	}
	e.listed = true
	p.tasks[e.fd] = e
	p.mu.Unlock()
	p.served.Add(1)
	select {
	case <-e.done:
		return e.finished, nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	if e.busy {
		e.cancelled = true
		p.mu.Unlock()
		<-e.done
		return e.finished, nil
	}
	if e.listed {
		p.unlist(e)
		p.mu.Unlock()
		return false, nil
	}
	p.mu.Unlock()
	<-e.done
	return e.finished, nil
}

// unlist takes e out of the epoll set; p.mu is held.
func (p *poller) unlist(e *pollEntry) {
	_ = syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_DEL, int(e.fd), nil)
	delete(p.tasks, e.fd)
	e.listed = false
}

// run is the poller's goroutine.
func (p *poller) run() {
	events := make([]syscall.EpollEvent, 256)
	var batch []*pollEntry
	for {
		n, err := syscall.EpollWait(p.epfd, events, -1)
		if err != nil {
			if err != syscall.EINTR {
				time.Sleep(time.Millisecond) // cannot happen with a valid set
			}
			continue
		}
		p.mu.Lock()
		for _, ev := range events[:n] {
			if e := p.tasks[ev.Fd]; e != nil && !e.cancelled {
				e.busy = true
				batch = append(batch, e)
			}
		}
		p.mu.Unlock()
		for _, e := range batch {
			e.finished = e.task.step()
		}
		p.mu.Lock()
		for i, e := range batch {
			e.busy = false
			if e.finished || e.cancelled {
				p.unlist(e)
				e.done <- struct{}{}
			}
			batch[i] = nil
		}
		p.mu.Unlock()
		batch = batch[:0]
		if n < len(events) {
			nap(pollWindow)
		}
	}
}

// nap sleeps d on this thread with an OS sleep.
func nap(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
