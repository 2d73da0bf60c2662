package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	stdnet "net"
	stdhttp "net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/treadline/treadline/cmd/tankhost/internal/agones"
	"github.com/treadline/treadline/cmd/tankhost/internal/agones/agonestest"
	"github.com/treadline/treadline/net"
	"golang.org/x/sys/unix"
)

// imageTag names the image the runc test builds.
const imageTag = "treadline/tankhost:runc-test"

// TestImageUnderRunc builds the image with scripts/image, unpacks it with umoci and
// runs it with runc as a Kubernetes pod runs it: the image's user with no home it can
// write (HOME=/, a read-only root filesystem), no capabilities, no privilege
// escalation, in a network namespace of its own. As a game server it has the
// container args and securityContext of deploy/agones/fleet.yaml and Agones'
// sdk-server beside it in that namespace, as the sidecar is in a pod (where it is
// installed); with the image's default command it keeps its identity in its home.
// Each must listen, serve a player and stay up. It needs root, runc, umoci and
// nsenter's kernel (setns); it skips, saying so, where they are missing.
func TestImageUnderRunc(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runc: builds and runs the image; skipped with -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("runc: running a container needs root (CI runs as root); skipped")
	}
	var tools []string
	for _, name := range []string{"runc", "umoci", "tar"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("runc: %s not installed (Debian: apt-get install runc umoci); skipped", name)
		}
		tools = append(tools, p)
	}
	runc, umoci, tarBin := tools[0], tools[1], tools[2]
	dir := t.TempDir()
	image := filepath.Join(dir, "image.tar")
	build := exec.Command("bash", "../../scripts/image", image)
	build.Env = append(os.Environ(), "TAG="+imageTag)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/image: %v\n%s", err, out)
	}
	layout := filepath.Join(dir, "oci")
	if err := os.Mkdir(layout, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tarBin, "-xf", image, "-C", layout).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	var fl fleetManifest
	decodeManifest(t, "fleet.yaml", &fl)
	pod := fl.Spec.Template.Spec.Template.Spec.Containers[0]
	rt := &runtimeTools{runc: runc, umoci: umoci, layout: layout, root: filepath.Join(dir, "runc")}

	t.Run("fleet", func(t *testing.T) {
		t.Parallel()
		c := rt.container(t, "fleet", func(cfg *ociConfig) {
			cfg.Process.Args = append([]string{"/tankhost"}, pod.Args...)
			cfg.Process.Env = append(withoutHome(cfg.Process.Env), agones.PortEnv+"=9358")
			cfg.secure(t, pod.SecurityContext)
		})
		var side *podSidecar
		if path, ok := agonestest.SDKServerPath(); ok {
			side = startPodSidecar(t, c.ns, path)
			t.Logf("runc: sidecar: real Agones sdk-server (%s) in the container's network namespace", path)
		} else {
			t.Logf("runc: no sidecar (Agones' sdk-server not at %s; set %s): tankhost retries it, the lifecycle part is not checked",
				path, agonestest.SDKServerEnv)
		}
		c.start(t)
		fp := c.listening(t)
		if !strings.Contains(c.logs(), "msg=identity file=none") {
			t.Errorf("the game server did not keep its identity in memory:\n%s", c.logs())
		}
		c.serves(t, "127.0.0.1:7777", fp, "127.0.0.1:9100")
		if side != nil {
			gs := side.waitReady(t)
			if got := gs.ObjectMeta.Annotations[agones.LabelPrefix+"fingerprint"]; got != fp {
				t.Errorf("fingerprint annotation %q, want %q", got, fp)
			}
			if m := gs.ObjectMeta.Labels[agones.LabelPrefix+"map"]; m != "valley" {
				t.Errorf("map label %q, want valley", m)
			}
			// Staying up: health pings at the manifest's 2 s, the container running.
			poll(t, "two health pings", func() bool { return side.healthPings() >= 2 })
		}
		c.stillRunning(t)
		// SIGTERM, as the kubelet sends it: Shutdown goes out and tankhost stops.
		c.signal(t, "TERM")
		poll(t, "tankhost stopped", func() bool { return strings.Contains(c.logs(), "msg=stopped") })
		if side != nil {
			poll(t, "Shutdown reached the sidecar", func() bool { return side.shutdowns() >= 1 })
		}
		t.Logf("runc: fleet args %q, uid %d, read-only root: listened, served a player, stayed up, stopped on SIGTERM",
			pod.Args, pod.SecurityContext.RunAsUser)
	})

	t.Run("default command", func(t *testing.T) {
		t.Parallel()
		var args []string
		c := rt.container(t, "default", func(cfg *ociConfig) { args = cfg.Process.Args })
		c.start(t)
		fp := c.listening(t)
		c.serves(t, "127.0.0.1:7777", fp, "")
		c.stillRunning(t)
		id := filepath.Join(c.bundle, "rootfs", "home", "tankhost", ".config", "treadline", "host-identity.pem")
		st, err := os.Stat(id)
		if err != nil {
			t.Fatalf("no identity kept in the image's home: %v\n%s", err, c.logs())
		}
		if sys := st.Sys().(*syscall.Stat_t); sys.Uid != 65532 || st.Mode().Perm() != 0o600 {
			t.Errorf("identity file owner %d, mode %v; want 65532 and 0600", sys.Uid, st.Mode().Perm())
		}
		t.Logf("runc: default command %q: listened, served a player, kept its identity in /home/tankhost", args)
	})
}

// runtimeTools unpack and run containers of one image layout.
type runtimeTools struct {
	runc, umoci string
	layout      string // the OCI layout
	root        string // runc's state directory
}

// ociConfig is the part of a runtime-spec config.json the test changes; the rest is
// kept as umoci wrote it.
type ociConfig struct {
	raw     map[string]json.RawMessage
	Process struct {
		raw          map[string]json.RawMessage
		Args, Env    []string
		User         struct{ UID, GID int }
		Terminal     bool
		NoNewPrivs   bool
		Capabilities map[string][]string
	}
	ReadOnlyRoot bool
}

func readOCIConfig(t *testing.T, path string) *ociConfig {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := &ociConfig{}
	var root struct {
		Readonly bool `json:"readonly"`
	}
	var user struct {
		UID int `json:"uid"`
		GID int `json:"gid"`
	}
	err = errors.Join(json.Unmarshal(data, &c.raw), json.Unmarshal(c.raw["process"], &c.Process.raw),
		json.Unmarshal(c.raw["root"], &root), json.Unmarshal(c.Process.raw["user"], &user),
		json.Unmarshal(c.Process.raw["args"], &c.Process.Args), json.Unmarshal(c.Process.raw["env"], &c.Process.Env))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c.ReadOnlyRoot = root.Readonly
	c.Process.User.UID, c.Process.User.GID = user.UID, user.GID
	c.Process.Capabilities = map[string][]string{}
	if caps, ok := c.Process.raw["capabilities"]; ok {
		json.Unmarshal(caps, &c.Process.Capabilities)
	}
	return c
}

func (c *ociConfig) write(t *testing.T, path string) {
	t.Helper()
	set := func(m map[string]json.RawMessage, k string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		m[k] = b
	}
	set(c.Process.raw, "args", c.Process.Args)
	set(c.Process.raw, "env", c.Process.Env)
	set(c.Process.raw, "terminal", false) // its output goes to a file
	set(c.Process.raw, "noNewPrivileges", c.Process.NoNewPrivs)
	set(c.Process.raw, "capabilities", c.Process.Capabilities)
	set(c.Process.raw, "user", map[string]int{"uid": c.Process.User.UID, "gid": c.Process.User.GID})
	set(c.raw, "process", c.Process.raw)
	set(c.raw, "root", map[string]any{"path": "rootfs", "readonly": c.ReadOnlyRoot})
	data, err := json.Marshal(c.raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// secure applies a container's securityContext as the kubelet does: its user and
// group (which must be the image's), a read-only root, no new privileges, and the
// capabilities left once those it drops are gone. Its seccomp profile is the
// runtime's default, which umoci's config does not carry: not applied.
func (c *ociConfig) secure(t *testing.T, sc securityContext) {
	t.Helper()
	if c.Process.User.UID != sc.RunAsUser || c.Process.User.GID != sc.RunAsGroup {
		t.Errorf("the image runs as %d:%d, the manifest as %d:%d", c.Process.User.UID, c.Process.User.GID, sc.RunAsUser, sc.RunAsGroup)
	}
	c.Process.User.UID, c.Process.User.GID = sc.RunAsUser, sc.RunAsGroup
	c.ReadOnlyRoot = sc.ReadOnlyRootFilesystem
	c.Process.NoNewPrivs = sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation
	for _, d := range sc.Capabilities.Drop {
		for set, caps := range c.Process.Capabilities {
			c.Process.Capabilities[set] = dropCap(caps, d)
		}
	}
}

// dropCap returns caps without drop ("ALL": without any).
func dropCap(caps []string, drop string) []string {
	out := []string{}
	for _, c := range caps {
		if drop != "ALL" && c != "CAP_"+drop {
			out = append(out, c)
		}
	}
	return out
}

// withoutHome returns env without HOME: runc then sets HOME=/, as it does for a user
// with no passwd entry, the case that once stopped every game server at start.
func withoutHome(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, "HOME=") {
			out = append(out, e)
		}
	}
	return out
}

// ctr is one runc container of the image, created and not yet started.
type ctr struct {
	rt      *runtimeTools
	id      string
	bundle  string
	logFile string
	pid     int
	ns      *netns // its network namespace
}

// container unpacks the image into a bundle of its own, lets configure change its
// config.json, and creates the container (its process waits for start). The
// container is deleted, by id, when the test ends.
func (rt *runtimeTools) container(t *testing.T, name string, configure func(*ociConfig)) *ctr {
	t.Helper()
	c := &ctr{rt: rt, id: fmt.Sprintf("treadline-test-%d-%d-%s", os.Getpid(), time.Now().UnixNano(), name),
		bundle: filepath.Join(t.TempDir(), "bundle")}
	ref := rt.layout + ":" + imageTag[strings.LastIndex(imageTag, ":")+1:]
	if out, err := exec.Command(rt.umoci, "unpack", "--image", ref, c.bundle).CombinedOutput(); err != nil {
		t.Fatalf("umoci unpack: %v\n%s", err, out)
	}
	cfgPath := filepath.Join(c.bundle, "config.json")
	cfg := readOCIConfig(t, cfgPath)
	configure(cfg)
	cfg.write(t, cfgPath)
	c.logFile = filepath.Join(c.bundle, "container.log")
	logf, err := os.Create(c.logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	create := exec.Command(rt.runc, "--root", rt.root, "create", "--bundle", c.bundle, c.id)
	create.Stdout, create.Stderr = logf, logf // the container's output follows runc's
	t.Cleanup(func() {
		if out, err := exec.Command(rt.runc, "--root", rt.root, "delete", "--force", c.id).CombinedOutput(); err != nil {
			t.Errorf("runc delete --force %s: %v\n%s", c.id, err, out)
		}
	})
	if err := create.Run(); err != nil {
		out := c.logs()
		if cannotRun.MatchString(out) {
			t.Skipf("runc: cannot run containers here: %v\n%s", err, out)
		}
		t.Fatalf("runc create: %v\n%s", err, out)
	}
	var st struct {
		Pid    int    `json:"pid"`
		Status string `json:"status"`
	}
	out, err := exec.Command(rt.runc, "--root", rt.root, "state", c.id).Output()
	if err := errors.Join(err, json.Unmarshal(out, &st)); err != nil || st.Pid == 0 {
		t.Fatalf("runc state %s: %v (%s)", c.id, err, out)
	}
	c.pid = st.Pid
	c.ns = enterNetns(t, c.pid)
	return c
}

// cannotRun matches what runc says where the machine cannot run containers at all
// (no cgroups, no namespaces for this user), as opposed to a container that fails.
var cannotRun = regexp.MustCompile(`(?i)cgroup.*(not found|no such|read-only)|operation not permitted|unshare|mount.*permission denied`)

func (c *ctr) start(t *testing.T) {
	t.Helper()
	if out, err := exec.Command(c.rt.runc, "--root", c.rt.root, "start", c.id).CombinedOutput(); err != nil {
		t.Fatalf("runc start: %v\n%s\n%s", err, out, c.logs())
	}
}

func (c *ctr) logs() string {
	b, _ := os.ReadFile(c.logFile)
	return string(b)
}

// fingerprintRE finds the fingerprint in tankhost's "listening" line.
var fingerprintRE = regexp.MustCompile(`msg=listening .*fingerprint=([0-9a-f]{64})`)

// listening waits for tankhost's "listening" line and returns the fingerprint it
// gives; it fails at once if the container stops first.
func (c *ctr) listening(t *testing.T) string {
	t.Helper()
	var fp string
	poll(t, "tankhost listening in the container", func() bool {
		if m := fingerprintRE.FindStringSubmatch(c.logs()); m != nil {
			fp = m[1]
			return true
		}
		if st := c.status(t); st == "stopped" {
			t.Fatalf("the container stopped before listening:\n%s", c.logs())
		}
		return false
	})
	return fp
}

func (c *ctr) status(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(c.rt.runc, "--root", c.rt.root, "state", c.id).Output()
	var st struct {
		Status string `json:"status"`
	}
	if err := errors.Join(err, json.Unmarshal(out, &st)); err != nil {
		t.Fatalf("runc state %s: %v", c.id, err)
	}
	return st.Status
}

func (c *ctr) stillRunning(t *testing.T) {
	t.Helper()
	if st := c.status(t); st != "running" {
		t.Fatalf("container %s, want running:\n%s", st, c.logs())
	}
}

func (c *ctr) signal(t *testing.T, sig string) {
	t.Helper()
	if out, err := exec.Command(c.rt.runc, "--root", c.rt.root, "kill", c.id, sig).CombinedOutput(); err != nil {
		t.Fatalf("runc kill %s: %v\n%s", sig, err, out)
	}
}

// serves joins a player to the host at game, pinned to fp, from inside the
// container's network namespace, and, with metrics set, checks /healthz and that
// /metrics counts the player.
func (c *ctr) serves(t *testing.T, game, fp, metrics string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var client *net.Client
	var err error
	c.ns.run(func() {
		client, err = net.Dial(ctx, net.ClientConfig{Addr: game, Fingerprint: fp, KnownHosts: "-", Name: "probe",
			RequestTimeout: wait})
	})
	if err != nil {
		t.Fatalf("join %s#%s in the container: %v\n%s", game, fp, err, c.logs())
	}
	defer client.Close()
	if metrics == "" {
		return
	}
	hc := c.ns.httpClient()
	get := func(path string) (int, string) {
		resp, err := hc.Get("http://" + metrics + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	poll(t, "/healthz ok with the player", func() bool {
		code, body := get("/healthz")
		return code == stdhttp.StatusOK && strings.HasPrefix(body, "ok: playing, 1 players")
	})
	if _, body := get("/metrics"); !strings.Contains(body, "\ntreadline_players 1\n") || !strings.Contains(body, "\ngo_goroutines ") {
		t.Errorf("/metrics in the container lacks treadline_players 1 or go_goroutines:\n%s", body)
	}
}

// netns is a goroutine locked to an OS thread that has entered another process's
// network namespace: sockets it opens, and processes it starts, live there.
type netns struct {
	calls chan func()
}

// enterNetns enters the network namespace of process pid. It is left when the test
// ends: the thread, never unlocked, ends with its goroutine.
func enterNetns(t *testing.T, pid int) *netns {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ns := &netns{calls: make(chan func())}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- err
			return
		}
		errc <- nil
		for call := range ns.calls {
			call()
		}
	}()
	if err := <-errc; err != nil {
		t.Skipf("runc: cannot enter the container's network namespace (setns): %v", err)
	}
	t.Cleanup(func() { close(ns.calls) })
	return ns
}

// run runs f in the namespace and waits for it.
func (ns *netns) run(f func()) {
	done := make(chan struct{})
	ns.calls <- func() {
		defer close(done)
		f()
	}
	<-done
}

// httpClient returns an HTTP client whose connections are dialled in the namespace.
func (ns *netns) httpClient() *stdhttp.Client {
	return &stdhttp.Client{Timeout: wait, Transport: &stdhttp.Transport{Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (conn stdnet.Conn, err error) {
			ns.run(func() { conn, err = (&stdnet.Dialer{}).DialContext(ctx, network, addr) })
			return conn, err
		}}}
}

// podSidecar is Agones' sdk-server in local mode in a container's network namespace,
// on Agones' default port (9358), as the sidecar runs in a pod.
type podSidecar struct {
	http *stdhttp.Client
	mu   sync.Mutex
	seen map[string]int // log messages
}

func startPodSidecar(t *testing.T, ns *netns, path string) *podSidecar {
	t.Helper()
	gsFile := filepath.Join(t.TempDir(), "gameserver.json")
	gs := `{"apiVersion":"agones.dev/v1","kind":"GameServer","metadata":{"name":"tankhost-runc","namespace":"default"},` +
		`"status":{"state":"Scheduled","address":"198.51.100.7","ports":[{"name":"game","port":7402}]}}`
	if err := os.WriteFile(gsFile, []byte(gs), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &podSidecar{http: ns.httpClient(), seen: map[string]int{}}
	cmd := exec.Command(path, "--local", "--file", gsFile, "--http-port", "9358", "--grpc-port", "9357",
		"--health-port", "8080", "--graceful-termination=false")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	ns.run(func() { err = cmd.Start() })
	if err != nil {
		t.Fatalf("sidecar: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var line struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil {
				s.mu.Lock()
				s.seen[line.Message]++
				s.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		<-done
	})
	return s
}

func (s *podSidecar) count(msg string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[msg]
}

func (s *podSidecar) healthPings() int { return s.count("Health Ping Received!") }
func (s *podSidecar) shutdowns() int   { return s.count("Shutdown request has been received!") }

// waitReady waits until the GameServer is Ready and returns it.
func (s *podSidecar) waitReady(t *testing.T) agones.GameServer {
	t.Helper()
	var gs agones.GameServer
	poll(t, "the GameServer Ready", func() bool {
		resp, err := s.http.Get("http://" + stdnet.JoinHostPort(agones.Host, "9358") + "/gameserver")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		gs = agones.GameServer{}
		return resp.StatusCode == stdhttp.StatusOK && json.NewDecoder(resp.Body).Decode(&gs) == nil &&
			gs.Status.State == agones.StateReady
	})
	return gs
}
