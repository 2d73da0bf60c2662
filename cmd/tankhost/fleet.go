package main

import (
	"context"
	"log/slog"
	stdnet "net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/treadline/treadline/cmd/tankhost/internal/agones"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/session"
)

// Fleet defaults and the names the deploy/agones manifests share with tankhost.
const (
	// DefaultHealthEvery is how often tankhost -agones pings the sidecar; the
	// GameServer's health.periodSeconds must not be shorter.
	DefaultHealthEvery = 2 * time.Second
	// DefaultFleetIdle is how long an Agones match stays up with no players once
	// someone has played, unless -idle says otherwise.
	DefaultFleetIdle = 2 * time.Minute
	// PortName is the name of the game port in the GameServer spec; the public
	// -join line is built from the port of this name.
	PortName = "game"
	// shutdownFlush bounds the wait for Shutdown to reach the sidecar on exit.
	shutdownFlush = 5 * time.Second
)

// Keys of the GameServer metadata tankhost sets (Agones prefixes them with
// agones.LabelPrefix).
const (
	labelPlayers          = "players"
	labelMap              = "map"
	annotationFingerprint = "fingerprint"
)

// fleet runs tankhost as an Agones game server: it marks the server Ready once it
// listens, labels it with the map and the player count, marks it Allocated on the
// first join when no allocator does, starts the round clock when an allocator
// allocates it, keeps it healthy while the match loop steps, and shuts it down when
// the match ends.
type fleet struct {
	sdk          *agones.SDK
	selfAllocate bool
	idle         time.Duration      // how long an allocated match waits for its first player
	end          context.CancelFunc // ends the match early
	roundStart   chan<- struct{}    // closed at the allocation: the round clock starts
	log          *slog.Logger

	// allocatedAt is when watchAllocation saw an allocator's allocation, Unix
	// nanoseconds; 0 until then.
	allocatedAt atomic.Int64

	// Touched only from the match loop (tick) after listening.
	players   int
	allocated bool // Allocate asked for (-self-allocate)
	joined    bool // someone has played
	ended     bool
}

// newFleet returns the fleet agent; end cancels the match (an allocated server nobody
// joins within idle ends early); roundStart is closed when an allocator allocates
// the server.
func newFleet(sdk *agones.SDK, selfAllocate bool, idle time.Duration, end context.CancelFunc, roundStart chan<- struct{},
	log *slog.Logger) *fleet {
	return &fleet{sdk: sdk, selfAllocate: selfAllocate, idle: idle, end: end, roundStart: roundStart, log: log, players: -1}
}

// watchAllocation reads the GameServer every period until an allocator has
// allocated it, then starts the round clock and records when, so that a match whose
// players never come ends after the idle time like one they left. It returns when
// ctx ends or once allocated.
func (f *fleet) watchAllocation(ctx context.Context, every time.Duration, now func() time.Time) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		gs, err := f.sdk.GameServer(ctx)
		if err == nil && gs.Status.State == agones.StateAllocated {
			f.allocatedAt.Store(now().UnixNano())
			close(f.roundStart)
			f.log.Info("game server allocated: the round starts", "gameserver", gs.ObjectMeta.Name)
			return
		}
	}
}

// listening labels the server and marks it Ready. The fingerprint goes in an
// annotation: 64 hex digits are one more than a label value may hold.
func (f *fleet) listening(h *net.Host) {
	f.sdk.SetAnnotation(annotationFingerprint, h.Fingerprint())
	f.sdk.SetLabel(labelMap, agones.LabelValue(h.Match().Map))
	f.sdk.SetLabel(labelPlayers, "0")
	f.players = 0
	f.sdk.Ready()
}

// tick follows one step of the match loop; it never blocks.
func (f *fleet) tick(st session.ServeStatus) {
	f.sdk.Beat()
	if st.Players != f.players {
		f.players = st.Players
		f.sdk.SetLabel(labelPlayers, strconv.Itoa(st.Players))
	}
	if f.selfAllocate && st.Players > 0 && !f.allocated {
		f.allocated = true
		f.sdk.Allocate()
	}
	f.joined = f.joined || st.Players > 0
	if at := f.allocatedAt.Load(); at != 0 && !f.joined && !f.ended && f.idle > 0 &&
		st.Now.Sub(time.Unix(0, at)) >= f.idle {
		f.ended = true
		f.log.Info("match over: allocated, but no player came: shutting the game server down", "waited", f.idle)
		f.sdk.Shutdown()
		f.end()
	}
	if st.State == session.MatchEnded && !f.ended {
		// The seam for every rule that ends a match: whatever ended it, the fleet
		// gets the server back.
		f.ended = true
		f.log.Info("match over: shutting the game server down", "reason", st.Reason)
		f.sdk.Shutdown()
	}
}

// logJoinLine waits for Ready to reach the sidecar and the GameServer to have a
// public address, then logs the -join line players need. It gives up quietly when
// ctx ends first.
func (f *fleet) logJoinLine(ctx context.Context, fp string) {
	gs, err := f.sdk.WaitPublic(ctx)
	if err != nil {
		return
	}
	port := gs.Status.Port(PortName)
	if port == 0 && len(gs.Status.Ports) > 0 {
		port = gs.Status.Ports[0].Port
	}
	f.log.Info("game server ready", "gameserver", gs.ObjectMeta.Name, "state", gs.Status.State,
		"join", "tanks -join "+joinAddress(gs.Status.Address, port, fp))
}

// exit tells the sidecar the server is going away (whatever the reason tankhost
// stops) and waits a little for the calls to get through.
func (f *fleet) exit() {
	f.sdk.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownFlush)
	defer cancel()
	if err := f.sdk.Flush(ctx); err != nil {
		f.log.Warn("leaving without telling the sidecar", "err", err)
	}
	f.sdk.Close()
}

// joinAddress formats host, port and fingerprint as the -join argument.
func joinAddress(host string, port int, fp string) string {
	return stdnet.JoinHostPort(host, strconv.Itoa(port)) + "#" + fp
}
