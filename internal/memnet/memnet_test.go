package memnet

import (
	"errors"
	stdnet "net"
	"os"
	"testing"
	"testing/synctest"
	"time"
)

// TestDeliversByAddress: a datagram reaches the endpoint at its address, with the
// sender's address; one to nobody is lost; a closed endpoint's address is free.
func TestDeliversByAddress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New()
		a, err := n.Listen("127.0.0.1:1000")
		if err != nil {
			t.Fatal(err)
		}
		b, err := n.Listen("127.0.0.2:1000")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.Listen("127.0.0.1:1000"); err == nil {
			t.Error("a second endpoint at a taken address")
		}
		if _, err := a.WriteTo([]byte("nobody"), &stdnet.UDPAddr{IP: stdnet.IPv4(127, 0, 0, 3), Port: 1000}); err != nil {
			t.Error(err)
		}
		if _, err := a.WriteTo([]byte("hello"), b.LocalAddr()); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 3)
		got, from, err := b.ReadFrom(buf)
		if err != nil || string(buf[:got]) != "hel" || from.String() != "127.0.0.1:1000" {
			t.Errorf("read %q from %v (%v), want the datagram cut to 3 bytes from 127.0.0.1:1000", buf[:got], from, err)
		}
		b.Close()
		if _, err := n.Listen("127.0.0.2:1000"); err != nil {
			t.Errorf("a closed endpoint's address stays taken: %v", err)
		}
	})
}

// TestReadWaitsOnTheFakeClock: a read waits durably (the bubble's clock jumps to
// its deadline), a new deadline wakes it, and Close ends it.
func TestReadWaitsOnTheFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New()
		c, err := n.Listen("127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		c.SetReadDeadline(start.Add(time.Hour))
		if _, _, err := c.ReadFrom(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != time.Hour {
			t.Errorf("read gave %v after %v, want the deadline's error after an hour", err, time.Since(start))
		}
		c.SetReadDeadline(time.Time{})
		done := make(chan error)
		go func() {
			_, _, err := c.ReadFrom(make([]byte, 8))
			done <- err
		}()
		synctest.Wait()
		c.SetReadDeadline(time.Now()) // how QUIC stops its reader
		if err := <-done; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("read woken by a past deadline: %v", err)
		}
		c.SetReadDeadline(time.Time{})
		go func() {
			_, _, err := c.ReadFrom(make([]byte, 8))
			done <- err
		}()
		synctest.Wait()
		c.Close()
		if err := <-done; !errors.Is(err, stdnet.ErrClosed) {
			t.Errorf("read ended by Close: %v", err)
		}
	})
}

// TestFullQueueDrops: past QueueLimit unread datagrams, new ones are dropped and
// counted, as a full socket buffer drops them.
func TestFullQueueDrops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New()
		a, _ := n.Listen("127.0.0.1:1")
		b, _ := n.Listen("127.0.0.1:2")
		for range QueueLimit + 3 {
			a.WriteTo([]byte{1}, b.LocalAddr())
		}
		if got := b.Dropped(); got != 3 {
			t.Errorf("dropped %d, want 3", got)
		}
	})
}

// TestWrapHoldsThePort: Wrap stands an endpoint in at the socket's address (the
// loopback for an unspecified one) and closes the socket with it.
func TestWrapHoldsThePort(t *testing.T) {
	udp, err := stdnet.ListenPacket("udp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	port := udp.LocalAddr().(*stdnet.UDPAddr).Port
	synctest.Test(t, func(t *testing.T) {
		n := New()
		c, err := n.Wrap(udp)
		if err != nil {
			t.Fatal(err)
		}
		if want := (&stdnet.UDPAddr{IP: stdnet.IPv4(127, 0, 0, 1), Port: port}).String(); c.LocalAddr().String() != want {
			t.Errorf("endpoint at %v, want %s", c.LocalAddr(), want)
		}
		c.Close()
	})
	if _, err := udp.WriteTo([]byte{1}, udp.LocalAddr()); !errors.Is(err, stdnet.ErrClosed) {
		t.Errorf("the socket under a closed endpoint: %v, want closed", err)
	}
}
