package cli

import (
	"context"
	"flag"
	"log/slog"
	stdnet "net"
	"net/netip"
	"strings"
	"sync"

	"github.com/treadline/treadline/lobby"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

// LANUsage is the help of -lan.
const LANUsage = "network interfaces to announce on (a host) or to look on (-list): all, off, or names such as lo,eth0; $" +
	LANEnv + ", when set, is the default"

// LANEnv names the environment variable that, when set, is the default of -lan (the
// commands' tests set it to lo, so that they announce and look on the loopback
// interface only).
const LANEnv = "TREADLINE_LAN"

// Findable is what -lan and -list say about how players find a hosted match: the
// local network's interfaces to announce it on, and the list servers to register
// it with.
type Findable struct {
	// LAN is -lan: "all", "off" or interface names.
	LAN string
	// Lists are the list servers' URLs (-list URL[,URL…]).
	Lists []string
}

// FindableFlags registers -lan on fs, defaulting to $TREADLINE_LAN, or to
// lanDefault when that is not set (getenv reads the environment); hosts give -list
// URL through ListURLs.
func FindableFlags(fs *flag.FlagSet, lanDefault string, getenv func(string) string) *Findable {
	f := &Findable{}
	def := lanDefault
	if v := getenv(LANEnv); v != "" {
		def = v
	}
	fs.StringVar(&f.LAN, "lan", def, LANUsage)
	return f
}

// ListURLs checks a comma-separated list of list servers' URLs, such as -list or
// -lists, and returns them.
func ListURLs(flag, s string) ([]string, error) {
	var out []string
	for _, u := range strings.Split(s, ",") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		if _, _, err := lobby.ParseListURL(u); err != nil {
			return nil, Usagef(flag, "%v", err)
		}
		out = append(out, u)
	}
	if len(out) == 0 {
		return nil, Usagef(flag, "%q: give a list server's URL, https://HOST[:PORT][#FINGERPRINT]", s)
	}
	return out, nil
}

// Interfaces checks -lan and returns its interfaces. With "all", a host that
// listens on one IP (listen is its listen address; "" for a browser) announces on
// the interface that holds it only: elsewhere it could not be joined.
func (f *Findable) Interfaces(flag, listen string) ([]*stdnet.Interface, error) {
	ifaces, err := lobby.Interfaces(f.LAN)
	if err != nil {
		return nil, Usagef(flag, "%q: %v; give all, off, or the names of this machine's interfaces", f.LAN, err)
	}
	host, _, _ := stdnet.SplitHostPort(listen)
	ip, perr := netip.ParseAddr(host)
	if f.LAN != "all" || perr != nil || ip.IsUnspecified() {
		return ifaces, nil
	}
	for _, ifi := range ifaces {
		addrs, _ := ifi.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*stdnet.IPNet); ok && n.IP.Equal(ip.AsSlice()) {
				return []*stdnet.Interface{ifi}, nil
			}
		}
	}
	return nil, nil
}

// HostInfo is what a host says about its match beyond what its net.Host knows.
type HostInfo struct {
	// Name names the match.
	Name string
	// Passphrase reports that joining needs one.
	Passphrase bool
	// Capacity is net.Limits.MaxPlayers (0: the default), the host's own player
	// counted.
	Capacity int
	// HostPlays reports that the host's own player is a person, who counts as one.
	HostPlays bool
	// Fleet marks a fleet's game server.
	Fleet bool
	// PublicAddr, if set, returns the address players join, for list servers
	// (a fleet's game server learns it from its fleet); it is waited for before
	// registering. If nil, list servers take the address registrations come from.
	PublicAddr func(ctx context.Context) (string, error)
}

// Publish makes the match h hosts findable: announced on ifaces of the local network
// and registered with lists, until the returned stop is called.
func Publish(h *net.Host, info HostInfo, ifaces []*stdnet.Interface, lists []string, log *slog.Logger) (stop func()) {
	port := h.Addr().(*stdnet.UDPAddr).Port
	capacity := info.Capacity
	if capacity == 0 {
		capacity = net.DefaultMaxPlayers
	}
	var (
		mu     sync.Mutex
		public string
	)
	status := func() lobby.Entry {
		players, room := h.Stats().Players-1, capacity-1 // the host's own player carries its bots
		if info.HostPlays {
			players, room = players+1, room+1
		}
		mu.Lock()
		defer mu.Unlock()
		return lobby.Entry{Name: info.Name, Map: h.Match().Map, Players: max(0, players), Capacity: max(1, room),
			Passphrase: info.Passphrase, Version: int(wire.Version), Fingerprint: h.Fingerprint(), Fleet: info.Fleet, Addr: public}
	}
	var stops []func()
	if len(ifaces) > 0 {
		a, err := lobby.Announce(lobby.AnnounceConfig{Status: status, Port: port, Interfaces: ifaces, Logger: log})
		if err != nil {
			log.Warn("not announced on the local network", "err", err)
		} else {
			stops = append(stops, func() { a.Close() })
		}
	}
	if len(lists) > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			if info.PublicAddr != nil {
				addr, err := info.PublicAddr(ctx)
				if err != nil {
					return
				}
				mu.Lock()
				public = addr
				mu.Unlock()
			}
			r := lobby.Register(lobby.RegisterConfig{URLs: lists, Status: status, Port: port, Certificate: h.Certificate(), Logger: log})
			<-ctx.Done()
			r.Close()
		}()
		stops = append(stops, func() { cancel(); <-done })
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
