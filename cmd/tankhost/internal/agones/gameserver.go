package agones

import (
	"strings"
)

// GameServer states, as GameServer.Status.State spells them.
const (
	StateScheduled    = "Scheduled"
	StateRequestReady = "RequestReady"
	StateReady        = "Ready"
	StateAllocated    = "Allocated"
	StateShutdown     = "Shutdown"
	StateUnhealthy    = "Unhealthy"
)

// GameServer is the part of the GameServer record the SDK server returns (GET
// /gameserver) that Treadline reads. Field names follow the SDK's JSON.
type GameServer struct {
	ObjectMeta ObjectMeta `json:"object_meta"`
	Status     Status     `json:"status"`
}

// ObjectMeta is the GameServer's name and metadata.
type ObjectMeta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Status is where the GameServer stands and how players reach it.
type Status struct {
	// State is one of the State… constants.
	State string `json:"state"`
	// Address is the node's public address.
	Address string `json:"address,omitempty"`
	// Ports are the public ports, by the names the GameServer spec gives them.
	Ports []Port `json:"ports,omitempty"`
}

// Port is one public port of a GameServer.
type Port struct {
	Name string `json:"name"`
	Port int    `json:"port"`
}

// Port returns the public port named name, or 0.
func (s Status) Port(name string) int {
	for _, p := range s.Ports {
		if p.Name == name {
			return p.Port
		}
	}
	return 0
}

// maxLabelValue is Kubernetes' limit on a label value's length.
const maxLabelValue = 63

// LabelValue returns v made into a valid Kubernetes label value: characters other
// than ASCII letters, digits, '-', '_' and '.' become '-', the value is cut to 63
// characters and must begin and end with a letter or digit (others are trimmed).
// An empty result is valid.
func LabelValue(v string) string {
	b := []byte(v)
	for i, c := range b {
		if !alnum(c) && c != '-' && c != '_' && c != '.' {
			b[i] = '-'
		}
	}
	out := string(b[:min(len(b), maxLabelValue)])
	return strings.TrimFunc(out, func(r rune) bool { return r > 0x7f || !alnum(byte(r)) })
}

// ValidLabelValue reports whether v is a valid Kubernetes label value.
func ValidLabelValue(v string) bool { return v == LabelValue(v) }

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
