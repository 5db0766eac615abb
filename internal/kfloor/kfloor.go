// Package kfloor measures what the host's kernel charges for one token
// event on loopback TCP: the floor under any client's and any simulator's
// CPU per event on this host, whatever they do in user space.
//
// On loopback the sender's write(2) also runs the receiver's TCP input (the
// packet is delivered in the sender's context), and the receiver's read
// sends the ACKs; so a client and a simulator on one host each pay about one
// of these per event before any work of their own. On a paravirtualized
// virtual machine both are several times what they are on bare metal.
package kfloor

import "time"

// Floor is the CPU time of one operation on the calling thread, user and
// system, averaged over the measurement.
type Floor struct {
	// Syscall is a null system call (getppid).
	Syscall time.Duration `json:"syscall_ns"`
	// Write is one write(2) of an event (one segment) on a connection.
	Write time.Duration `json:"write_ns"`
	// Recvmsg is one recvmsg(2) of that event with its receive timestamp
	// (SO_TIMESTAMPNS), as the client reads it.
	Recvmsg time.Duration `json:"recvmsg_ns"`
	// Events is how many events Write and Recvmsg were averaged over.
	Events int `json:"events"`
}

// Event is one streamed token's SSE message as the simulator writes it for
// a completion: the size of segment the floor is measured with.
var Event = []byte("data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" hello\",\"logprobs\":null,\"finish_reason\":null}]}\n\n")
