// Package kfloor measures what the host's kernel charges for one token
// event on loopback TCP: the floor under any client's and any simulator's
// CPU per event on this host, whatever they do in user space.
//
// On loopback the sender's write(2) also runs the receiver's TCP input (the
// packet is delivered in the sender's context), and the receiver's read
// sends the ACKs; so a client and a simulator on one host each pay about one
// of these per event before any work of their own. On a paravirtualized
// virtual machine both are several times what they are on bare metal, and
// its virtual CPUs need not be equal: one that shares its physical core
// with another guest is slower, so the floor is measured on each CPU (of
// up to MaxCPUs).
package kfloor

import "time"

// Floor is what the kernel charges for one event: the CPU time (user and
// system) of each operation on the measuring thread, the median over the
// measurement's rounds.
type Floor struct {
	// Syscall, Write and Recvmsg are those of the cheapest CPU (the least
	// Write+Recvmsg of PerCPU), or of the CPU the thread ran on when the
	// floor was not measured per CPU.
	Costs
	// Events is how many events each CPU wrote and read.
	Events int `json:"events"`
	// PerCPU has each CPU's own costs, in CPU order, when the floor was
	// measured on each CPU the process may run on (at most MaxCPUs).
	PerCPU []CPUCosts `json:"per_cpu,omitempty"`
}

// Costs is the CPU time of each operation.
type Costs struct {
	// Syscall is a null system call (getppid).
	Syscall time.Duration `json:"syscall_ns"`
	// Write is one write(2) of an event (one segment) on a connection.
	Write time.Duration `json:"write_ns"`
	// Recvmsg is one recvmsg(2) of that event with its receive timestamp
	// (SO_TIMESTAMPNS), as the client reads it.
	Recvmsg time.Duration `json:"recvmsg_ns"`
}

// CPUCosts is the costs measured on one CPU.
type CPUCosts struct {
	// CPU is the CPU's number.
	CPU int `json:"cpu"`
	Costs
}

// Spread is how much dearer an event (Write+Recvmsg) is on the dearest CPU
// than on the cheapest, as a fraction (0.5: half as dear again); 0 without
// per-CPU figures.
func (f *Floor) Spread() float64 {
	if len(f.PerCPU) < 2 {
		return 0
	}
	lo, hi := f.PerCPU[0].event(), f.PerCPU[0].event()
	for _, c := range f.PerCPU[1:] {
		lo, hi = min(lo, c.event()), max(hi, c.event())
	}
	if lo <= 0 {
		return 0
	}
	return float64(hi-lo) / float64(lo)
}

// event is the cost of one event, written and read.
func (c *Costs) event() time.Duration { return c.Write + c.Recvmsg }

// cheapest returns the costs of the CPU where an event costs least.
func cheapest(per []CPUCosts) Costs {
	best := per[0].Costs
	for _, c := range per[1:] {
		if c.event() < best.event() {
			best = c.Costs
		}
	}
	return best
}

// MaxCPUs bounds the CPUs measured one by one; on a host with more, the
// floor is measured once, wherever the thread runs.
const MaxCPUs = 8

// Event is one streamed token's SSE message as the simulator writes it for
// a completion: the size of segment the floor is measured with.
var Event = []byte("data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" hello\",\"logprobs\":null,\"finish_reason\":null}]}\n\n")
