//go:build !linux

package run

// ReadProcs returns nil: per-process CPU time is read on Linux only.
func ReadProcs() ProcSnapshot { return nil }
