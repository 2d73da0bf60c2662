package main

import (
	"io"
	stdnet "net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v2"
)

// The part of the Agones and Kubernetes schemas the manifests in deploy/agones use.
// Decoding is strict: a field these types lack (a typo, say) fails the test.
type (
	objectMeta struct {
		Name         string            `yaml:"name"`
		GenerateName string            `yaml:"generateName"`
		Labels       map[string]string `yaml:"labels"`
		Annotations  map[string]string `yaml:"annotations"`
	}
	gameServerSpec struct {
		Container string   `yaml:"container"`
		Ports     []gsPort `yaml:"ports"`
		Health    struct {
			Disabled            bool `yaml:"disabled"`
			InitialDelaySeconds int  `yaml:"initialDelaySeconds"`
			PeriodSeconds       int  `yaml:"periodSeconds"`
			FailureThreshold    int  `yaml:"failureThreshold"`
		} `yaml:"health"`
		Template struct {
			Metadata objectMeta `yaml:"metadata"`
			Spec     struct {
				Containers []container `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	}
	gsPort struct {
		Name          string `yaml:"name"`
		PortPolicy    string `yaml:"portPolicy"`
		ContainerPort int    `yaml:"containerPort"`
		Protocol      string `yaml:"protocol"`
	}
	container struct {
		Name  string   `yaml:"name"`
		Image string   `yaml:"image"`
		Args  []string `yaml:"args"`
		Ports []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
			Protocol      string `yaml:"protocol"`
		} `yaml:"ports"`
		Resources struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		SecurityContext securityContext `yaml:"securityContext"`
	}
	securityContext struct {
		RunAsNonRoot             bool  `yaml:"runAsNonRoot"`
		RunAsUser                int   `yaml:"runAsUser"`
		RunAsGroup               int   `yaml:"runAsGroup"`
		ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
		SeccompProfile struct {
			Type string `yaml:"type"`
		} `yaml:"seccompProfile"`
	}
	podMonitor struct {
		APIVersion string     `yaml:"apiVersion"`
		Kind       string     `yaml:"kind"`
		Metadata   objectMeta `yaml:"metadata"`
		Spec       struct {
			Selector struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			} `yaml:"selector"`
			PodMetricsEndpoints []struct {
				Port     string `yaml:"port"`
				Path     string `yaml:"path"`
				Interval string `yaml:"interval"`
			} `yaml:"podMetricsEndpoints"`
		} `yaml:"spec"`
	}
	gameServer struct {
		APIVersion string         `yaml:"apiVersion"`
		Kind       string         `yaml:"kind"`
		Metadata   objectMeta     `yaml:"metadata"`
		Spec       gameServerSpec `yaml:"spec"`
	}
	fleetManifest struct {
		APIVersion string     `yaml:"apiVersion"`
		Kind       string     `yaml:"kind"`
		Metadata   objectMeta `yaml:"metadata"`
		Spec       struct {
			Replicas   int    `yaml:"replicas"`
			Scheduling string `yaml:"scheduling"`
			Template   struct {
				Metadata objectMeta     `yaml:"metadata"`
				Spec     gameServerSpec `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	autoscaler struct {
		APIVersion string     `yaml:"apiVersion"`
		Kind       string     `yaml:"kind"`
		Metadata   objectMeta `yaml:"metadata"`
		Spec       struct {
			FleetName string `yaml:"fleetName"`
			Policy    struct {
				Type   string `yaml:"type"`
				Buffer struct {
					BufferSize  int `yaml:"bufferSize"`
					MinReplicas int `yaml:"minReplicas"`
					MaxReplicas int `yaml:"maxReplicas"`
				} `yaml:"buffer"`
			} `yaml:"policy"`
			Sync struct {
				Type          string `yaml:"type"`
				FixedInterval struct {
					Seconds int `yaml:"seconds"`
				} `yaml:"fixedInterval"`
			} `yaml:"sync"`
		} `yaml:"spec"`
	}
	allocation struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       struct {
			Selectors []struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			} `yaml:"selectors"`
		} `yaml:"spec"`
	}
)

// decodeManifest strictly decodes deploy/agones/name into v.
func decodeManifest(t *testing.T, name string, v any) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "deploy", "agones", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// checkGameServerSpec checks what tankhost depends on in a GameServer spec: the game
// port's name, protocol and policy and that it is the port tankhost listens on; the
// container's arguments, parsed by tankhost's own flags; health pings that fit the
// health period; and resources.
func checkGameServerSpec(t *testing.T, where string, spec gameServerSpec, selfAllocate bool) {
	t.Helper()
	if len(spec.Ports) != 1 {
		t.Fatalf("%s: %d ports, want the game port alone", where, len(spec.Ports))
	}
	p := spec.Ports[0]
	if p.Name != PortName || p.Protocol != "UDP" || p.PortPolicy != "Dynamic" {
		t.Errorf("%s: port %+v, want name %q, UDP, Dynamic", where, p, PortName)
	}
	cs := spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Name != spec.Container {
		t.Fatalf("%s: containers %+v, want one named %q", where, cs, spec.Container)
	}
	c := cs[0]
	f, err := parseFlags(c.Args, io.Discard)
	if err != nil {
		t.Fatalf("%s: tankhost refuses the container's args %q: %v", where, c.Args, err)
	}
	if !f.agones || f.selfAllocate != selfAllocate {
		t.Errorf("%s: -agones %v, -self-allocate %v; want true, %v", where, f.agones, f.selfAllocate, selfAllocate)
	}
	if _, port, err := stdnet.SplitHostPort(f.serve.Addr); err != nil || port != strconv.Itoa(p.ContainerPort) {
		t.Errorf("%s: tankhost listens on %q, the game port is %d", where, f.serve.Addr, p.ContainerPort)
	}
	// Agones wants a ping in every period; two per period leave room for a late one.
	h := spec.Health
	period := time.Duration(h.PeriodSeconds) * time.Second
	if h.Disabled || f.healthEvery > period/2 || h.FailureThreshold < 2 || h.InitialDelaySeconds < 1 {
		t.Errorf("%s: health %+v against pings every %v: want ≥ 2 pings per period and a threshold ≥ 2", where, h, f.healthEvery)
	}
	if f.serve.IdleTimeout <= 0 {
		t.Errorf("%s: -idle %v: an allocated match must end", where, f.serve.IdleTimeout)
	}
	if f.serve.Rounds <= 0 {
		t.Errorf("%s: -rounds %d: a game server's match must end with its round", where, f.serve.Rounds)
	}
	if f.metrics != "" {
		_, mport, _ := stdnet.SplitHostPort(f.metrics)
		found := false
		for _, cp := range c.Ports {
			found = found || strconv.Itoa(cp.ContainerPort) == mport && cp.Protocol == "TCP"
		}
		if !found || spec.Template.Metadata.Annotations["prometheus.io/port"] != mport {
			t.Errorf("%s: -metrics %s not declared as a TCP container port and scrape annotation", where, f.metrics)
		}
	}
	for _, k := range []string{"cpu", "memory"} {
		if c.Resources.Requests[k] == "" {
			t.Errorf("%s: no %s request", where, k)
		}
	}
	if c.Resources.Limits["memory"] == "" {
		t.Errorf("%s: no memory limit", where)
	}
	if c.Resources.Limits["cpu"] != "" {
		t.Errorf("%s: a CPU limit throttles the relay in bursts; request CPU instead", where)
	}
	if m := milliCPU(t, c.Resources.Requests["cpu"]); m < 50 || m > 1000 {
		t.Errorf("%s: CPU request %dm outside the measured range", where, m)
	}
	// The restricted Pod Security Standard, as the image runs: its user, a read-only
	// root (a game server writes nothing), no capabilities, no escalation.
	sc := c.SecurityContext
	if !sc.RunAsNonRoot || sc.RunAsUser != 65532 || sc.RunAsGroup != 65532 || !sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		!slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) || sc.SeccompProfile.Type != "RuntimeDefault" {
		t.Errorf("%s: securityContext %+v: want the restricted standard as the image runs (uid 65532, read-only root)", where, sc)
	}
	if f.identity.Path != "" {
		t.Errorf("%s: -identity %s on a read-only root: a game server keeps its identity in memory", where, f.identity.Path)
	}
	if l := spec.Template.Metadata.Labels; l["app"] != "tankhost" {
		t.Errorf("%s: pod labels %v lack app: tankhost, which podmonitor.yaml selects", where, l)
	}
}

// milliCPU parses a Kubernetes CPU quantity ("250m", "1", "0.5") into millicores.
func milliCPU(t *testing.T, q string) int {
	t.Helper()
	if v, ok := strings.CutSuffix(q, "m"); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("cpu %q: %v", q, err)
		}
		return n
	}
	f, err := strconv.ParseFloat(q, 64)
	if err != nil {
		t.Fatalf("cpu %q: %v", q, err)
	}
	return int(f * 1000)
}

func TestManifests(t *testing.T) {
	var gs gameServer
	decodeManifest(t, "gameserver.yaml", &gs)
	if gs.APIVersion != "agones.dev/v1" || gs.Kind != "GameServer" {
		t.Errorf("gameserver.yaml: %s %s", gs.APIVersion, gs.Kind)
	}
	checkGameServerSpec(t, "gameserver.yaml", gs.Spec, true)

	var fl fleetManifest
	decodeManifest(t, "fleet.yaml", &fl)
	if fl.APIVersion != "agones.dev/v1" || fl.Kind != "Fleet" || fl.Metadata.Name == "" {
		t.Errorf("fleet.yaml: %s %s %q", fl.APIVersion, fl.Kind, fl.Metadata.Name)
	}
	checkGameServerSpec(t, "fleet.yaml", fl.Spec.Template.Spec, false)

	var fa autoscaler
	decodeManifest(t, "fleetautoscaler.yaml", &fa)
	b := fa.Spec.Policy.Buffer
	if fa.APIVersion != "autoscaling.agones.dev/v1" || fa.Kind != "FleetAutoscaler" || fa.Spec.FleetName != fl.Metadata.Name ||
		fa.Spec.Policy.Type != "Buffer" || b.BufferSize < 1 || b.MinReplicas < b.BufferSize || b.MaxReplicas <= b.MinReplicas {
		t.Errorf("fleetautoscaler.yaml: %+v", fa)
	}

	var al allocation
	decodeManifest(t, "allocation.yaml", &al)
	if al.APIVersion != "allocation.agones.dev/v1" || al.Kind != "GameServerAllocation" || len(al.Spec.Selectors) != 1 ||
		al.Spec.Selectors[0].MatchLabels["agones.dev/fleet"] != fl.Metadata.Name {
		t.Errorf("allocation.yaml: %+v", al)
	}
	if m := al.Spec.Selectors[0].MatchLabels["agones.dev/sdk-"+labelMap]; m == "" {
		t.Errorf("allocation.yaml selects no map through the %q label tankhost sets", labelMap)
	}

	// The PodMonitor selects the fleet's pods (their template's labels, and the role
	// Agones labels game server pods with) and scrapes the metrics port by name.
	var pm podMonitor
	decodeManifest(t, "podmonitor.yaml", &pm)
	pod := fl.Spec.Template.Spec.Template
	for k, v := range pm.Spec.Selector.MatchLabels {
		if pod.Metadata.Labels[k] != v && !(k == "agones.dev/role" && v == "gameserver") {
			t.Errorf("podmonitor.yaml selects %s=%s; the fleet's pods have %v", k, v, pod.Metadata.Labels)
		}
	}
	eps := pm.Spec.PodMetricsEndpoints
	if pm.APIVersion != "monitoring.coreos.com/v1" || pm.Kind != "PodMonitor" || len(pm.Spec.Selector.MatchLabels) == 0 ||
		len(eps) != 1 || eps[0].Path != "/metrics" || eps[0].Port != pod.Spec.Containers[0].Ports[0].Name {
		t.Errorf("podmonitor.yaml: %+v, want /metrics on the container's %q port", pm, pod.Spec.Containers[0].Ports[0].Name)
	}
}

// TestManifestsStrict: the strict decoding the manifest test relies on does catch a
// misspelt field.
func TestManifestsStrict(t *testing.T) {
	var gs gameServer
	bad := "apiVersion: agones.dev/v1\nkind: GameServer\nspec:\n  health:\n    periodSecond: 5\n"
	if err := yaml.UnmarshalStrict([]byte(bad), &gs); err == nil {
		t.Error("a misspelt health field decoded without error")
	}
}
