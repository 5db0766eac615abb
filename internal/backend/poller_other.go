//go:build !linux

package backend

import (
	"context"
	"errors"
)

// poller is Linux-only; elsewhere each response is read by its own
// goroutine.
type poller struct{}

type pollTask interface{ step() bool }

func getPoller() *poller { return nil }

func (p *poller) serve(context.Context, int, pollTask) (bool, error) {
	return false, errors.ErrUnsupported
}
