//go:build !linux

package kfloor

import "errors"

// Measure is only implemented on Linux.
func Measure(conns, rounds, nullCalls int) (Floor, error) {
	return Floor{}, errors.ErrUnsupported
}
