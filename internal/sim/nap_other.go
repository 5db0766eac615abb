//go:build !linux

package sim

import "time"

// nap sleeps d; without a precise OS sleep wired in it uses the Go timer.
func nap(d time.Duration) { time.Sleep(d) }
