package main

import (
	stdnet "net"
	"net/netip"
	"sync"
	"time"
)

// Connection limits of the list server.
const (
	// DefaultMaxConns is how many connections the list server holds at once; the
	// ones past it are closed as they are accepted.
	DefaultMaxConns = 1024
	// DefaultMaxConnsPerSource is how many of them one IP address may hold.
	DefaultMaxConnsPerSource = 32
	// DefaultHandshakeTimeout bounds a connection's TLS handshake, and then each
	// request's headers.
	DefaultHandshakeTimeout = 5 * time.Second
	// DefaultIdleTimeout closes a kept-alive connection that sends no request.
	DefaultIdleTimeout = 30 * time.Second
)

// withDefaults returns cfg with its zero connection limits set to the defaults.
func (cfg config) withDefaults() config {
	if cfg.maxConns == 0 {
		cfg.maxConns = DefaultMaxConns
	}
	if cfg.maxConnsPerSource == 0 {
		cfg.maxConnsPerSource = DefaultMaxConnsPerSource
	}
	if cfg.handshakeTimeout == 0 {
		cfg.handshakeTimeout = DefaultHandshakeTimeout
	}
	if cfg.idleTimeout == 0 {
		cfg.idleTimeout = DefaultIdleTimeout
	}
	return cfg
}

// limitListener returns ln holding at most max connections at once and perSource
// from one IP address: Accept closes the ones past either at once and waits for
// the next.
func limitListener(ln stdnet.Listener, max, perSource int) stdnet.Listener {
	return &capListener{Listener: ln, max: max, perSource: perSource, bySource: map[netip.Addr]int{}}
}

type capListener struct {
	stdnet.Listener
	max, perSource int
	mu             sync.Mutex
	total          int
	bySource       map[netip.Addr]int // at most max entries
}

func (l *capListener) Accept() (stdnet.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		var src netip.Addr
		if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
			src = ap.Addr().Unmap()
		}
		l.mu.Lock()
		ok := l.total < l.max && l.bySource[src] < l.perSource
		if ok {
			l.total++
			l.bySource[src]++
		}
		l.mu.Unlock()
		if !ok {
			if tc, isTCP := c.(*stdnet.TCPConn); isTCP {
				tc.SetLinger(0) // a reset: nothing kept in TIME_WAIT
			}
			c.Close()
			continue
		}
		return &capConn{Conn: c, l: l, src: src}, nil
	}
}

// capConn gives its place back when closed.
type capConn struct {
	stdnet.Conn
	l    *capListener
	src  netip.Addr
	once sync.Once
}

func (c *capConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.total--
		if c.l.bySource[c.src]--; c.l.bySource[c.src] <= 0 {
			delete(c.l.bySource, c.src)
		}
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
