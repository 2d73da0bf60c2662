package main

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	stdnet "net"
	stdhttp "net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// metricsDocs are where the metrics table may live, from the module root: the first
// file holding metricsTableHeader is read.
var metricsDocs = []string{"docs/operations.md", "README.md"}

// metricsTableHeader opens the metrics table.
const metricsTableHeader = "| metric | type | meaning |"

// docMetric is one metric the table documents.
type docMetric struct {
	name   string // a family name, or a prefix ending in "_" for "go_…"
	typ    string // gauge, counter, histogram or standard
	labels []string
}

// metricsTable reads the documented metrics from the first of metricsDocs that holds
// the table.
func metricsTable(t *testing.T) (string, []docMetric) {
	t.Helper()
	for _, doc := range metricsDocs {
		data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(doc)))
		if err != nil {
			continue
		}
		_, table, ok := strings.Cut(string(data), metricsTableHeader+"\n")
		if !ok {
			continue
		}
		name := regexp.MustCompile("`([a-z_]+)(?:…|\\{([a-z_, ]+)\\})?`")
		var out []docMetric
		for _, row := range strings.Split(table, "\n")[1:] { // past the |---| line
			cells := strings.Split(row, "|")
			if len(cells) < 4 {
				break
			}
			typ := strings.TrimSuffix(strings.TrimSpace(cells[2]), "s")
			for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
				d := docMetric{name: m[1], typ: typ}
				if m[2] != "" {
					d.labels = strings.Split(strings.ReplaceAll(m[2], " ", ""), ",")
				}
				out = append(out, d)
			}
		}
		if len(out) == 0 {
			t.Fatalf("%s: the metrics table is empty", doc)
		}
		return doc, out
	}
	t.Fatalf("no metrics table (%q) in any of %v", metricsTableHeader, metricsDocs)
	return "", nil
}

// TestMetricsDocumented: every metric the docs' table names is on /metrics of a game
// server (-agones -metrics), with the type and labels the table gives; every
// treadline_ family on /metrics is in the table; and promtool, where installed, finds
// nothing to lint.
func TestMetricsDocumented(t *testing.T) {
	t.Parallel()
	doc, documented := metricsTable(t)
	side := fakeSidecar(t)
	h := startAgonesHost(t, side, []string{"-bots", "1", "-agones", "-metrics", "127.0.0.1:0",
		"-dis", freeUDPPort(t)}, nil)
	playing(t, h, "ann") // a player, so that every family has been through a step
	resp, err := stdhttp.Get("http://" + h.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != stdhttp.StatusOK {
		t.Fatalf("GET /metrics: %s, %v", resp.Status, err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	types := map[dto.MetricType]string{dto.MetricType_GAUGE: "gauge", dto.MetricType_COUNTER: "counter",
		dto.MetricType_HISTOGRAM: "histogram"}
	for _, d := range documented {
		if strings.HasSuffix(d.name, "_") { // a standard collector's prefix
			n := 0
			for name := range fams {
				if strings.HasPrefix(name, d.name) {
					n++
				}
			}
			if n == 0 || d.typ != "standard" {
				t.Errorf("%s: %s…, %s: %d families on /metrics", doc, d.name, d.typ, n)
			}
			continue
		}
		f, ok := fams[d.name]
		if !ok {
			t.Errorf("%s documents %s; /metrics lacks it", doc, d.name)
			continue
		}
		if got := types[f.GetType()]; got != d.typ {
			t.Errorf("%s: %s is a %s, /metrics has a %s", doc, d.name, d.typ, got)
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName())
			}
			if !slices.Equal(labels, d.labels) {
				t.Errorf("%s: %s has labels %v, /metrics %v", doc, d.name, d.labels, labels)
				break
			}
		}
	}
	for name := range fams {
		if !strings.HasPrefix(name, metricPrefix) {
			continue
		}
		if !slices.ContainsFunc(documented, func(d docMetric) bool { return d.name == name }) {
			t.Errorf("/metrics has %s; %s's table does not document it", name, doc)
		}
	}

	t.Run("promtool", func(t *testing.T) {
		promtool, err := exec.LookPath("promtool")
		if err != nil {
			t.Skip("promtool not installed (Debian: apt-get install prometheus): `promtool check metrics` not run")
		}
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(body)
		out, err := cmd.CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
		t.Logf("promtool check metrics: clean on %d families (%s)", len(fams), promtool)
	})
}

// TestMetricsServerBoundsConnections: of many silent connections from one address
// the server holds metricsMaxPerSource at most, closing the rest at once (the oldest
// first), and closes those it holds at the header timeout's latest.
func TestMetricsServerBoundsConnections(t *testing.T) {
	m := newMonitor(nil, time.Now)
	addr, stop, err := serveMetrics(t.Context(), "127.0.0.1:0", m, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var conns []stdnet.Conn
	for range 3 * metricsMaxConns {
		c, err := stdnet.Dial("tcp", addr.String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	closedBy := func(c stdnet.Conn, d time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(d))
		_, err := c.Read(make([]byte, 1))
		return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
	}
	// A quarter second each: on a loaded machine the server's accept loop may not
	// yet have closed the ones it evicts.
	held := 0
	for _, c := range conns {
		if !closedBy(c, 250*time.Millisecond) {
			held++
		}
	}
	if held > metricsMaxPerSource {
		t.Errorf("%d of %d silent connections from one address held, at most %d", held, len(conns), metricsMaxPerSource)
	}
	if last := conns[len(conns)-1]; !closedBy(last, metricsHeaderTimeout+time.Second) {
		t.Errorf("a silent connection held past the header timeout (%v)", metricsHeaderTimeout)
	}
}
