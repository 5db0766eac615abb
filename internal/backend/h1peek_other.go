//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package backend

import "net"

// h1Peek would look at an idle connection; on this system it cannot, and
// an idle connection is never found closed before it is used.
type h1Peek struct{}

func newH1Peek(net.Conn) *h1Peek { return nil }

// gone reports false: nothing is known about the connection.
func (*h1Peek) gone() bool { return false }
