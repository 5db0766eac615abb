//go:build !unix

package run

// ReadUsage returns zero: getrusage is not available on this platform.
func ReadUsage() Usage { return Usage{} }

// ReadHostCPU returns zero: not read on this platform.
func ReadHostCPU() HostCPU { return HostCPU{} }
