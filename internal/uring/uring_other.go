//go:build !linux

package uring

import (
	"errors"
	"syscall"
	"time"
)

// Ring is an io_uring instance; there is none off Linux.
type Ring struct{}

// New returns errors.ErrUnsupported: io_uring is Linux's.
func New(uint32) (*Ring, error) { return nil, errors.ErrUnsupported }

// NewWithFlags returns errors.ErrUnsupported: io_uring is Linux's.
func NewWithFlags(uint32, uint32) (*Ring, error) { return nil, errors.ErrUnsupported }

// SubmitAndWaitTimeout returns errors.ErrUnsupported.
func (r *Ring) SubmitAndWaitTimeout(uint32, time.Duration) (int, error) {
	return 0, errors.ErrUnsupported
}

// FeatExtArg is IORING_FEAT_EXT_ARG.
const FeatExtArg = 1 << 8

// Features returns 0.
func (r *Ring) Features() uint32 { return 0 }

// Close does nothing.
func (r *Ring) Close() error { return nil }

// Free returns 0.
func (r *Ring) Free() int { return 0 }

// PrepSend returns ErrFull.
func (r *Ring) PrepSend(int, []byte, uint32, uint64) error { return ErrFull }

// PrepRecvmsg returns ErrFull.
func (r *Ring) PrepRecvmsg(int, *syscall.Msghdr, uint32, uint64) error { return ErrFull }

// PrepRead returns ErrFull.
func (r *Ring) PrepRead(int, []byte, uint64) error { return ErrFull }

// PrepPollAdd returns ErrFull.
func (r *Ring) PrepPollAdd(int, uint32, uint64) error { return ErrFull }

// PrepCancel returns ErrFull.
func (r *Ring) PrepCancel(uint64, uint64) error { return ErrFull }

// Submit returns errors.ErrUnsupported.
func (r *Ring) Submit() (int, error) { return 0, errors.ErrUnsupported }

// SubmitAndWait returns errors.ErrUnsupported.
func (r *Ring) SubmitAndWait(uint32) (int, error) { return 0, errors.ErrUnsupported }

// Discard returns 0.
func (r *Ring) Discard() int { return 0 }

// Reap returns 0.
func (r *Ring) Reap(func(Completion)) int { return 0 }
