package main

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	stdnet "net"
	stdhttp "net/http"
	"strings"
	"testing"
	"time"
)

// idleKeepAlive opens a connection to addr, makes one keep-alive request on it and
// leaves it idle, open: what a scraper between scrapes, or an attacker, holds.
func idleKeepAlive(t *testing.T, addr string) stdnet.Conn {
	t.Helper()
	c, err := stdnet.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(2 * time.Second))
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := stdhttp.ReadResponse(bufio.NewReader(c), nil)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	c.SetDeadline(time.Time{})
	return c
}

// TestMetricsHealthUnderIdleConnections: 64 idle keep-alive connections and 16 that
// never send a byte, all from the prober's own address, held open throughout, do not
// stop /healthz and /metrics from answering every probe promptly.
func TestMetricsHealthUnderIdleConnections(t *testing.T) {
	m := newMonitor(nil, time.Now)
	addr, stop, err := serveMetrics(t.Context(), "127.0.0.1:0", m, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var held []stdnet.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range 64 {
		held = append(held, idleKeepAlive(t, addr.String()))
	}
	for range 16 {
		c, err := stdnet.Dial("tcp", addr.String())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	client := &stdhttp.Client{Timeout: time.Second, Transport: &stdhttp.Transport{DisableKeepAlives: true}}
	answered, tries := 0, 0
	for i := range 10 {
		path := "/healthz"
		if i%2 == 1 {
			path = "/metrics"
		}
		tries++
		resp, err := client.Get("http://" + addr.String() + path)
		if err != nil {
			t.Logf("%s: %v", path, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case path == "/healthz" && strings.Contains(string(body), "starting"),
			path == "/metrics" && resp.StatusCode == stdhttp.StatusOK && strings.Contains(string(body), metricPrefix):
			answered++
		default:
			t.Logf("%s: %s %q", path, resp.Status, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d of %d probes answered with 80 connections held", answered, tries)
	if answered != tries {
		t.Errorf("%d of %d probes answered with 64 idle keep-alive and 16 silent connections held", answered, tries)
	}
}
