// Package agonestest is a fake Agones SDK server for tests: an httptest server that
// implements the SDK's REST contract and the GameServer states (Scheduled →
// RequestReady → Ready → Allocated → Shutdown), records every call, and can fail
// calls or vanish and come back on the same port.
package agonestest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/treadline/treadline/cmd/tankhost/internal/agones"
)

// Call is one request the sidecar received.
type Call struct {
	// Method and Path are the request's.
	Method, Path string
	// Key and Value are the body's, for metadata calls.
	Key, Value string
	// Status is the HTTP status the sidecar answered.
	Status int
	// State is the GameServer state after the call.
	State string
}

// Sidecar is a fake SDK server listening on a loopback port.
type Sidecar struct {
	t    testing.TB
	addr string

	mu      sync.Mutex
	srv     *httptest.Server
	calls   []Call
	history []string // states passed through, in order
	gs      agones.GameServer
	hook    func(Call) int
	health  []time.Time
}

// New starts a sidecar for a GameServer in state Scheduled, with public address
// address and one port named portName at port. It stops when the test ends.
func New(t testing.TB, address, portName string, port int) *Sidecar {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Sidecar{t: t, addr: ln.Addr().String()}
	s.gs.ObjectMeta = agones.ObjectMeta{Name: "tankhost-test", Namespace: "default",
		Labels: map[string]string{}, Annotations: map[string]string{}}
	s.gs.Status = agones.Status{State: agones.StateScheduled, Address: address,
		Ports: []agones.Port{{Name: portName, Port: port}}}
	s.history = []string{agones.StateScheduled}
	s.serve(ln)
	t.Cleanup(s.Stop)
	return s
}

// Addr returns the sidecar's host:port.
func (s *Sidecar) Addr() string { return s.addr }

// Port returns the sidecar's port, as AGONES_SDK_HTTP_PORT gives it.
func (s *Sidecar) Port() string {
	_, p, _ := net.SplitHostPort(s.addr)
	return p
}

func (s *Sidecar) serve(ln net.Listener) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
}

// Stop makes the sidecar vanish: its port refuses connections until Start.
func (s *Sidecar) Stop() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		srv.CloseClientConnections()
		srv.Close()
	}
}

// Start brings a stopped sidecar back on the same port, with the same GameServer.
func (s *Sidecar) Start() {
	s.t.Helper()
	var ln net.Listener
	var err error
	// The port was ours a moment ago; rebinding it can race the kernel briefly.
	for range 100 {
		if ln, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatalf("sidecar: listen again on %s: %v", s.addr, err)
	}
	s.serve(ln)
}

// SetHook sets a function that sees each call before it is handled; a non-zero
// status it returns is answered instead (a 500, say), and the call changes nothing.
func (s *Sidecar) SetHook(h func(Call) int) {
	s.mu.Lock()
	s.hook = h
	s.mu.Unlock()
}

// Calls returns the calls received so far.
func (s *Sidecar) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Count returns how many calls to path were answered with 200.
func (s *Sidecar) Count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if c.Path == path && c.Status == http.StatusOK {
			n++
		}
	}
	return n
}

// HealthTimes returns when each accepted health ping arrived.
func (s *Sidecar) HealthTimes() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.health...)
}

// GameServer returns the GameServer as the sidecar has it.
func (s *Sidecar) GameServer() agones.GameServer {
	s.mu.Lock()
	defer s.mu.Unlock()
	gs := s.gs
	gs.ObjectMeta.Labels = clone(gs.ObjectMeta.Labels)
	gs.ObjectMeta.Annotations = clone(gs.ObjectMeta.Annotations)
	return gs
}

// States returns the states the GameServer passed through, in order.
func (s *Sidecar) States() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.history...)
}

// Allocate moves a Ready GameServer to Allocated, as an allocator's
// GameServerAllocation does.
func (s *Sidecar) Allocate() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gs.Status.State != agones.StateReady {
		return false
	}
	s.setState(agones.StateAllocated)
	return true
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Wait polls until cond holds, failing the test after timeout.
func (s *Sidecar) Wait(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	waitFor(t, timeout, what, cond, func() string { return fmt.Sprintf("calls %v; states %v", s.Calls(), s.States()) })
}

// setState moves the GameServer to state; s.mu held.
func (s *Sidecar) setState(state string) {
	if s.gs.Status.State == state {
		return
	}
	s.gs.Status.State = state
	s.history = append(s.history, state)
}

func (s *Sidecar) handle(w http.ResponseWriter, r *http.Request) {
	c, badBody := readCall(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	status := 0
	if s.hook != nil {
		s.mu.Unlock()
		status = s.hook(c)
		s.mu.Lock()
	}
	var answer any = struct{}{}
	if status == 0 {
		if badBody {
			status = http.StatusBadRequest
		} else {
			status, answer = s.route(r.Method, r.URL.Path, c)
		}
	}
	c.Status = status
	c.State = s.gs.Status.State
	s.calls = append(s.calls, c)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if status == http.StatusOK {
		json.NewEncoder(w).Encode(answer)
	} else {
		io.WriteString(w, `{"error":"`+http.StatusText(status)+`"}`)
	}
}

// readCall reads the call r makes, with the key and value of a PUT, and reports a
// bad body: a POST's must be an empty JSON object, a PUT's must hold exactly a key
// and a value.
func readCall(r *http.Request) (c Call, badBody bool) {
	c = Call{Method: r.Method, Path: r.URL.Path}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if r.Method != http.MethodPost && r.Method != http.MethodPut {
		return c, false
	}
	var kv struct {
		Key   *string `json:"key"`
		Value *string `json:"value"`
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if r.Method == http.MethodPut {
		badBody = dec.Decode(&kv) != nil || kv.Key == nil || kv.Value == nil
	} else {
		var empty struct{}
		badBody = dec.Decode(&empty) != nil
	}
	if kv.Key != nil {
		c.Key = *kv.Key
	}
	if kv.Value != nil {
		c.Value = *kv.Value
	}
	return c, badBody
}

// route answers well-formed call c to method and path as the SDK server does, moving
// the GameServer as it asks; s.mu held. It returns the HTTP status and, for 200, the
// JSON answer.
func (s *Sidecar) route(method, path string, c Call) (int, any) {
	st := s.gs.Status.State
	switch method + " " + path {
	case "POST /ready":
		if st == agones.StateShutdown {
			return http.StatusConflict, nil
		}
		s.setState(agones.StateRequestReady)
		s.setState(agones.StateReady) // the controller's part, at once here
	case "POST /allocate":
		if st != agones.StateReady && st != agones.StateAllocated {
			return http.StatusConflict, nil
		}
		s.setState(agones.StateAllocated)
	case "POST /shutdown":
		s.setState(agones.StateShutdown)
	case "POST /health":
		s.health = append(s.health, time.Now())
	case "PUT /metadata/label":
		if !validLabelKey(c.Key) || !agones.ValidLabelValue(c.Value) {
			return http.StatusBadRequest, nil
		}
		s.gs.ObjectMeta.Labels[agones.LabelPrefix+c.Key] = c.Value
	case "PUT /metadata/annotation":
		if !validLabelKey(c.Key) {
			return http.StatusBadRequest, nil
		}
		s.gs.ObjectMeta.Annotations[agones.LabelPrefix+c.Key] = c.Value
	case "GET /gameserver":
		return http.StatusOK, s.gs
	default:
		if knownSDKPath(path) {
			return http.StatusMethodNotAllowed, nil
		}
		return http.StatusNotFound, nil
	}
	return http.StatusOK, struct{}{}
}

// knownSDKPath reports whether path is one the SDK server serves, under some method.
func knownSDKPath(path string) bool {
	for _, p := range []string{"/ready", "/allocate", "/shutdown", "/health", "/metadata/"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return path == "/gameserver"
}

// validLabelKey reports whether k can follow LabelPrefix in a label key: a name part
// of letters, digits, '-', '_' and '.', starting and ending alphanumeric, and short
// enough with the prefix's "sdk-" for the 63-character name limit.
func validLabelKey(k string) bool {
	return k != "" && len("sdk-"+k) <= 63 && agones.ValidLabelValue(k)
}
