package main

import (
	"fmt"
	stdnet "net"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/disgate"
	"github.com/treadline/treadline/net/dis"
)

// disFlags are the DIS gateway's flags.
type disFlags struct {
	addr, origin        string
	exercise, site, app uint
}

// gateway opens the DIS gateway the flags ask for, or returns nil without -dis.
func (f disFlags) gateway() (*disgate.Gateway, error) {
	if f.addr == "" {
		return nil, nil
	}
	o, err := parseOrigin(f.origin)
	if err != nil {
		return nil, cli.Usagef("dis-origin", "%v", err)
	}
	return disgate.New(disgate.Config{Addr: f.addr, Origin: &o, Exercise: uint8(f.exercise),
		Site: uint16(f.site), Application: uint16(f.app)})
}

// check refuses DIS flags out of range.
func (f disFlags) check() error {
	if f.addr != "" {
		_, port, err := stdnet.SplitHostPort(f.addr)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 {
			return cli.Usagef("dis", "%q: give ADDR:PORT (unicast, broadcast or a multicast group)", f.addr)
		}
	}
	switch {
	case f.exercise < 1 || f.exercise > 255:
		return cli.Usagef("dis-exercise", "%d: give 1 to 255", f.exercise)
	case f.site < 1 || f.site > 65534:
		return cli.Usagef("dis-site", "%d: give 1 to 65534", f.site)
	case f.app < 1 || f.app > 65534:
		return cli.Usagef("dis-app", "%d: give 1 to 65534", f.app)
	}
	if _, err := parseOrigin(f.origin); err != nil {
		return cli.Usagef("dis-origin", "%v", err)
	}
	return nil
}

// defaultOrigin is -dis-origin's default, dis.DefaultOrigin.
var defaultOrigin = fmt.Sprintf("%g,%g", dis.DefaultOrigin.Lat, dis.DefaultOrigin.Lon)

// parseOrigin reads "LAT,LON[,ALT]": degrees north and east, metres above the
// WGS84 ellipsoid.
func parseOrigin(s string) (dis.Geodetic, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return dis.Geodetic{}, fmt.Errorf("%q: give LAT,LON[,ALT] in degrees and metres", s)
	}
	var v [3]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return dis.Geodetic{}, fmt.Errorf("%q: give LAT,LON[,ALT] in degrees and metres", s)
		}
		v[i] = x
	}
	g := dis.Geodetic{Lat: v[0], Lon: v[1], Alt: v[2]}
	if !(g.Lat >= -90 && g.Lat <= 90) || !(g.Lon >= -180 && g.Lon <= 180) || !(g.Alt > -1e4 && g.Alt < 1e5) {
		return dis.Geodetic{}, fmt.Errorf("%q: latitude −90…90, longitude −180…180, altitude −10 000…100 000 m", s)
	}
	return g, nil
}

// disCollector exports a DIS gateway's counters.
type disCollector struct {
	gw                                *disgate.Gateway
	entities, sent, received, dropped *prometheus.Desc
}

func newDISCollector(gw *disgate.Gateway) *disCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(metricPrefix+name, help, labels, nil)
	}
	return &disCollector{gw: gw,
		entities: d("dis_entities", "DIS entities from other simulations in the match."),
		sent:     d("dis_pdus_sent_total", "DIS PDUs sent (Entity State and Remove Entity)."),
		received: d("dis_pdus_received_total", "DIS datagrams received, dropped ones included."),
		dropped:  d("dis_dropped_total", "DIS PDUs dropped, by reason (truncated, length, type, version, invalid, own, exercise, cap, send, other).", "reason"),
	}
}

// Describe implements prometheus.Collector.
func (c *disCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.entities
	ch <- c.sent
	ch <- c.received
	ch <- c.dropped
}

// Collect implements prometheus.Collector.
func (c *disCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.gw.Stats()
	ch <- prometheus.MustNewConstMetric(c.entities, prometheus.GaugeValue, float64(st.Entities))
	ch <- prometheus.MustNewConstMetric(c.sent, prometheus.CounterValue, float64(st.Sent))
	ch <- prometheus.MustNewConstMetric(c.received, prometheus.CounterValue, float64(st.Received))
	for _, r := range disgate.Reasons {
		ch <- prometheus.MustNewConstMetric(c.dropped, prometheus.CounterValue, float64(st.Dropped[r]), r)
	}
}
