package main

import (
	"context"
	"log/slog"
	stdnet "net"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/cmd/tankhost/internal/agones"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

// checkFindable checks -lan and -list.
func checkFindable(f *flags) error {
	if _, err := f.find.Interfaces("lan", f.serve.Addr); err != nil {
		return err
	}
	if f.lists == "" {
		return nil
	}
	urls, err := cli.ListURLs("list", f.lists)
	f.find.Lists = urls
	return err
}

// findable returns the hook that makes the match findable once the host listens (on
// the local network, and on list servers), and the function that stops it. A
// fleet's game server registers the public address its fleet gives it.
func findable(f flags, sdk *agones.SDK, log *slog.Logger) (publish func(*net.Host), stop func()) {
	var (
		mu    sync.Mutex
		stops []func()
	)
	publish = func(h *net.Host) {
		ifaces, _ := f.find.Interfaces("lan", f.serve.Addr) // checked at parse time
		hostname, _ := os.Hostname()
		info := cli.HostInfo{Name: matchName(f.name, hostname, h.Addr().(*stdnet.UDPAddr).Port), Passphrase: f.serve.Passphrase != "", Capacity: f.defences.Limits().MaxPlayers,
			Fleet: sdk != nil}
		if sdk != nil {
			info.PublicAddr = func(ctx context.Context) (string, error) {
				gs, err := sdk.WaitPublic(ctx)
				if err != nil {
					return "", err
				}
				port := gs.Status.Port(PortName)
				if port == 0 && len(gs.Status.Ports) > 0 {
					port = gs.Status.Ports[0].Port
				}
				return stdnet.JoinHostPort(gs.Status.Address, strconv.Itoa(port)), nil
			}
		}
		s := cli.Publish(h, info, ifaces, f.find.Lists, log)
		mu.Lock()
		stops = append(stops, s)
		mu.Unlock()
	}
	return publish, func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range stops {
			s()
		}
	}
}

// matchName is the name a host announces its match by: name (-name) when given,
// otherwise the first label of the machine's host name and the port, as
// "mybox:7777", so that the hosts of one machine read apart; the host name is cut
// to fit wire.MaxNameLen, and "tankhost" stands in for one that is empty or not
// printable.
func matchName(name, hostname string, port int) string {
	if name != "" {
		return name
	}
	p := ":" + strconv.Itoa(port)
	host, _, _ := strings.Cut(hostname, ".")
	if len(host) > wire.MaxNameLen-len(p) {
		host = host[:wire.MaxNameLen-len(p)]
	}
	if n := host + p; host != "" && wire.CheckName(n) == nil {
		return n
	}
	return "tankhost" + p
}
