package agonestest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/treadline/treadline/cmd/tankhost/internal/agones"
)

// Server is what lifecycle tests need of an SDK server: the fake Sidecar, or Agones'
// own sdk-server in local mode (Real).
type Server interface {
	// Kind says which server it is, for the test's log.
	Kind() string
	// Port returns the server's REST port, as AGONES_SDK_HTTP_PORT gives it.
	Port() string
	// GameServer returns the GameServer as the server has it.
	GameServer() agones.GameServer
	// Allocate moves a Ready GameServer to Allocated, as an allocator's
	// GameServerAllocation does, and reports whether it was Ready.
	Allocate() bool
	// Count returns how many calls to path ("/ready", "/health", "/allocate",
	// "/shutdown", "/metadata/label", "/metadata/annotation", "/gameserver") the
	// server accepted.
	Count(path string) int
	// Accepted returns the paths of the calls the server accepted, in order.
	Accepted() []string
	// HealthTimes returns when each accepted health ping arrived.
	HealthTimes() []time.Time
	// States returns the states the GameServer passed through, in order.
	States() []string
	// Wait polls until cond holds, failing the test after timeout.
	Wait(t testing.TB, timeout time.Duration, what string, cond func() bool)
}

// Kind implements Server.
func (s *Sidecar) Kind() string { return "fake (agonestest)" }

// Accepted implements Server: the paths of the calls answered with 200.
func (s *Sidecar) Accepted() []string {
	var out []string
	for _, c := range s.Calls() {
		if c.Status == http.StatusOK {
			out = append(out, c.Path)
		}
	}
	return out
}

var (
	_ Server = (*Sidecar)(nil)
	_ Server = (*Real)(nil)
)

// Lifecycle returns states without RequestReady: the controller's step between a Ready
// call and Ready, which the fake takes and the local sdk-server skips, so that the two
// servers' histories compare.
func Lifecycle(states []string) []string {
	var out []string
	for _, s := range states {
		if s != agones.StateRequestReady {
			out = append(out, s)
		}
	}
	return out
}

// SDKServerEnv names the environment variable that points the tests at Agones'
// sdk-server binary, where it is not at DefaultSDKServer.
const SDKServerEnv = "TREADLINE_SDK_SERVER"

// DefaultSDKServer is where the tests look for Agones' sdk-server binary, from the
// module's root directory (the one holding go.mod).
const DefaultSDKServer = "../shared/tools/agones-sdk-server"

// SDKServerPath returns the sdk-server binary the tests use: $TREADLINE_SDK_SERVER if
// set, else DefaultSDKServer from the module root, found by walking up from the
// working directory. ok reports whether it is an executable file.
func SDKServerPath() (path string, ok bool) {
	if p := os.Getenv(SDKServerEnv); p != "" {
		path = p
	} else {
		dir, err := os.Getwd()
		if err != nil {
			return DefaultSDKServer, false
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			up := filepath.Dir(dir)
			if up == dir {
				return DefaultSDKServer, false
			}
			dir = up
		}
		path = filepath.Join(dir, filepath.FromSlash(DefaultSDKServer))
	}
	st, err := os.Stat(path)
	return path, err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// Start starts Agones' sdk-server (Real) where SDKServerPath finds it and the fake
// Sidecar elsewhere, for a GameServer in state Scheduled with public address address
// and one port named portName at port, and logs which it started ("sidecar: …").
func Start(t testing.TB, address, portName string, port int) Server {
	t.Helper()
	var s Server
	if path, ok := SDKServerPath(); ok {
		s = NewReal(t, path, address, portName, port)
	} else {
		s = New(t, address, portName, port)
		t.Logf("sidecar: %s; Agones' sdk-server not found at %s (set %s to run against it)", s.Kind(), path, SDKServerEnv)
		return s
	}
	t.Logf("sidecar: %s", s.Kind())
	return s
}

// Real is Agones' own SDK server run in local mode (no Kubernetes): it answers the
// REST API as in a pod, keeps the GameServer in memory, and logs every call as a JSON
// line, from which Real counts them. Allocate plays an allocator by rewriting the
// GameServer file it was started with, which the server watches.
type Real struct {
	t    testing.TB
	path string // the binary
	file string // the GameServer it serves
	port string // REST
	base string
	http *http.Client
	cmd  *exec.Cmd
	done chan struct{} // closed when its log ends

	mu       sync.Mutex
	calls    map[string]int
	accepted []string
	health   []time.Time
	history  []string
	log      []string // the last lines, for failures
}

// realMessages maps the log message of each call the sdk-server accepts to the
// call's REST path.
var realMessages = map[string]string{
	"Ready request has been received!":    "/ready",
	"Health Ping Received!":               "/health",
	"Allocate request has been received!": "/allocate",
	"Shutdown request has been received!": "/shutdown",
	"Setting label":                       "/metadata/label",
	"Setting annotation":                  "/metadata/annotation",
	"Getting GameServer details":          "/gameserver",
}

// realStates are the states the calls move the GameServer to.
var realStates = map[string]string{
	"/ready":    agones.StateReady,
	"/allocate": agones.StateAllocated,
	"/shutdown": agones.StateShutdown,
}

// NewReal starts the sdk-server binary at path in local mode on free loopback ports,
// serving a GameServer in state Scheduled with public address address and one port
// named portName at port, and waits until it answers. It stops when the test ends.
func NewReal(t testing.TB, path, address, portName string, port int) *Real {
	t.Helper()
	s := &Real{t: t, path: path, file: filepath.Join(t.TempDir(), "gameserver.json"),
		http:    &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil}},
		calls:   map[string]int{},
		history: []string{agones.StateScheduled}}
	gs := agones.GameServer{
		ObjectMeta: agones.ObjectMeta{Name: "tankhost-test", Namespace: "default"},
		Status: agones.Status{State: agones.StateScheduled, Address: address,
			Ports: []agones.Port{{Name: portName, Port: port}}},
	}
	if err := s.writeFile(gs); err != nil {
		t.Fatal(err)
	}
	// The ports are free a moment before the server binds them; another process may
	// take one in between, so a failed start is tried again with new ones.
	var err error
	for range 3 {
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("sidecar: %v", err)
	}
	t.Cleanup(s.stop)
	return s
}

// start runs the binary on fresh ports and waits for its REST port to answer.
func (s *Real) start() error {
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	s.port = ports[0]
	s.base = "http://" + net.JoinHostPort(agones.Host, s.port)
	cmd := exec.Command(s.path, "--local", "--file", s.file, "--http-port", ports[0], "--grpc-port", ports[1],
		"--health-port", ports[2], "--graceful-termination=false")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.path, err)
	}
	done := make(chan struct{})
	go s.read(out, done)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(agones.Host, s.port), time.Second)
		if err == nil {
			c.Close()
			s.cmd, s.done = cmd, done
			return nil
		}
		select {
		case <-done:
			cmd.Wait()
			return fmt.Errorf("%s exited at start:\n%s", s.path, s.lastLines())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			return fmt.Errorf("%s not answering on port %s after 10 s:\n%s", s.path, s.port, s.lastLines())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop kills the server and waits for it.
func (s *Real) stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	<-s.done
	s.http.CloseIdleConnections()
}

// read records every call the server logs, until its output ends.
func (s *Real) read(r io.Reader, done chan<- struct{}) {
	defer close(done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var line struct {
			Message string    `json:"message"`
			Time    time.Time `json:"time"`
		}
		json.Unmarshal(sc.Bytes(), &line) // not JSON: kept for the log alone
		s.mu.Lock()
		s.log = append(s.log, sc.Text())
		if len(s.log) > 50 {
			s.log = s.log[1:]
		}
		if path, ok := realMessages[line.Message]; ok {
			s.calls[path]++
			s.accepted = append(s.accepted, path)
			if path == "/health" {
				s.health = append(s.health, line.Time)
			}
			if st, ok := realStates[path]; ok {
				s.setState(st)
			}
		}
		s.mu.Unlock()
	}
}

func (s *Real) lastLines() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := ""
	for _, l := range s.log {
		out += l + "\n"
	}
	return out
}

// setState records a move to state; s.mu held.
func (s *Real) setState(state string) {
	if s.history[len(s.history)-1] != state {
		s.history = append(s.history, state)
	}
}

// Kind implements Server.
func (s *Real) Kind() string { return "real Agones sdk-server (" + s.path + ")" }

// Port implements Server.
func (s *Real) Port() string { return s.port }

// GameServer implements Server: it asks the server (GET /gameserver). The local
// server hands its GameServer to the encoder without a copy, so a metadata call
// landing during the encoding makes it answer 500 ("size mismatch"); that answer is
// asked again, as tankhost does.
func (s *Real) GameServer() agones.GameServer {
	s.t.Helper()
	var err error
	for range 20 {
		var gs agones.GameServer
		if gs, err = s.getGameServer(); err == nil {
			return gs
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("sidecar: %v", err)
	return agones.GameServer{}
}

func (s *Real) getGameServer() (agones.GameServer, error) {
	var gs agones.GameServer
	resp, err := s.http.Get(s.base + "/gameserver")
	if err != nil {
		return gs, fmt.Errorf("GET /gameserver: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode == http.StatusOK {
		err = json.Unmarshal(body, &gs)
	}
	if err != nil || resp.StatusCode != http.StatusOK {
		return gs, fmt.Errorf("GET /gameserver: %s, %v: %s", resp.Status, err, body)
	}
	return gs, nil
}

// Allocate implements Server. The server reloads the whole GameServer from its
// file, so the file gets the metadata the server holds now: a label the game server
// sets between the read and the reload would be lost, so allocate when it sets none.
func (s *Real) Allocate() bool {
	s.t.Helper()
	gs := s.GameServer()
	if gs.Status.State != agones.StateReady {
		return false
	}
	gs.Status.State = agones.StateAllocated
	if err := s.writeFile(gs); err != nil {
		s.t.Fatal(err)
	}
	// The server reads the file when it sees the write: wait until it has.
	s.Wait(s.t, 10*time.Second, "the allocation read back", func() bool {
		return s.GameServer().Status.State == agones.StateAllocated
	})
	s.mu.Lock()
	s.setState(agones.StateAllocated)
	s.mu.Unlock()
	return true
}

// writeFile writes gs as the Kubernetes GameServer object the server reads, in
// place, so that the server's watch on the file sees a write.
func (s *Real) writeFile(gs agones.GameServer) error {
	type port struct {
		Name string `json:"name"`
		Port int    `json:"port"`
	}
	obj := struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Metadata   agones.ObjectMeta `json:"metadata"`
		Status     struct {
			State   string `json:"state"`
			Address string `json:"address"`
			Ports   []port `json:"ports"`
		} `json:"status"`
	}{APIVersion: "agones.dev/v1", Kind: "GameServer", Metadata: gs.ObjectMeta}
	obj.Status.State, obj.Status.Address = gs.Status.State, gs.Status.Address
	for _, p := range gs.Status.Ports {
		obj.Status.Ports = append(obj.Status.Ports, port(p))
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(s.file, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("sidecar: %w", err)
	}
	// One write of the whole object, then the tail cut: a reader never sees an
	// empty file.
	if _, err := f.WriteAt(data, 0); err != nil {
		f.Close()
		return fmt.Errorf("sidecar: %w", err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		f.Close()
		return fmt.Errorf("sidecar: %w", err)
	}
	return f.Close()
}

// Count implements Server.
func (s *Real) Count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[path]
}

// Accepted implements Server: the calls in the order the server logged them.
func (s *Real) Accepted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.accepted...)
}

// HealthTimes implements Server: the times the server logged the pings at.
func (s *Real) HealthTimes() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.health...)
}

// States implements Server: Scheduled, then the states the calls the server logged
// and the allocations moved it to.
func (s *Real) States() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.history...)
}

// Wait implements Server.
func (s *Real) Wait(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	waitFor(t, timeout, what, cond, func() string {
		return fmt.Sprintf("states %v; its last lines:\n%s", s.States(), s.lastLines())
	})
}

// waitFor polls until cond holds, failing the test after timeout with what and
// detail's account of the server.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool, detail func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("sidecar: %s: not within %v; %s", what, timeout, detail())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// freePorts returns n loopback TCP ports free a moment ago.
func freePorts(n int) ([]string, error) {
	var ports []string
	for range n {
		ln, err := net.Listen("tcp", net.JoinHostPort(agones.Host, "0"))
		if err != nil {
			return nil, err
		}
		defer ln.Close()
		ports = append(ports, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	}
	return ports, nil
}
