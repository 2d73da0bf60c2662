//go:build !unix

package disgate

import "syscall"

// control does nothing where the socket options are not set this way.
func control(_, _ string, _ syscall.RawConn) error { return nil }
