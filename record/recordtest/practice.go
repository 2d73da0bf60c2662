// Package recordtest records practice matches headless, in simulated time, for the
// tests of recording, replay and the lab on recordings: the real host in process
// (package game/gametest) with bots and a referee, and a player over an impaired
// link, both recorded into one file as tanks -record does, with what the player's
// match really showed kept beside it.
package recordtest

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/record"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/session"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// Config sets up a recorded practice match.
type Config struct {
	// Map is the battlefield. Required.
	Map *terrain.Map
	// Bots is how many bots the host runs; Patrol the share of them that patrol
	// routes (game.Config.Patrol).
	Bots   int
	Patrol float64
	// Seconds is how long the match runs, simulated; FPS the player's tick rate (if
	// zero, 60) and HostFPS the host's (if zero, session.DefaultHostTickRate), a divisor
	// of FPS.
	Seconds, FPS, HostFPS float64
	// Link is the impairment from the host to the player.
	Link impair.Link
	// Seed drives bots, spawns and the link.
	Seed uint64
	// Dir is where the recording is written (practice.tread).
	Dir string
	// Camera is where the player's camera stands, for the clamp's level of detail.
	Camera mgl64.Vec3
	// Writer tunes the recording.
	Writer record.Config
	// Ring, when positive, also keeps the last Ring of the player's view in memory
	// (Live.Ring), as a live match does for its kill camera.
	Ring time.Duration
	// UntilDeath ends the match at the tick the player's tank is destroyed, as the
	// player's kill camera starts, when that comes before Seconds.
	UntilDeath bool
}

// Live is what the player's match showed while it was recorded.
type Live struct {
	// Path is the recording.
	Path string
	// Player is the recording player's id; Self its tank's first actor id.
	Player, Self uint32
	// Frames are the player's ticks: the time and each remote tank's displayed
	// position.
	Frames []Frame
	// Truth holds every local tank's true poses as sampled (player's and bots').
	Truth map[uint32][]record.Pose
	// Received holds the state updates the player's match handled, per actor.
	Received map[uint32][]deadreckon.State
	// Stats are the writer's counters at the end.
	Stats record.Stats
	// Ring keeps the last seconds of the player's view (Config.Ring); nil without.
	Ring *record.Ring
	// HostShown are the host's ticks: where its match (the bots') showed every tank
	// it reckoned, the player's among them, as the shooters saw them.
	HostShown []Frame
	// Died reports the player's tank destroyed (with UntilDeath, at the last tick).
	Died bool
}

// Frame is one tick of the player's match.
type Frame struct {
	Time  float64
	Shown map[uint32]mgl64.Vec3
}

// capture is an Observer that keeps what the live match handled, then passes it on.
type capture struct {
	next   game.Observer
	live   *Live
	events bool // keep the events handled (the player's match)
}

func (c *capture) Polled(now float64, evs []net.Event, off time.Duration) {
	for _, ev := range evs {
		if !c.events {
			break
		}
		if ev.Kind == net.EventState {
			c.live.Received[ev.Actor] = append(c.live.Received[ev.Actor], ev.State)
		}
	}
	c.next.Polled(now, evs, off)
}

func (c *capture) Published(actor uint32, s deadreckon.State, now float64) {
	c.next.Published(actor, s, now)
}

func (c *capture) Truth(actor uint32, s *deadreckon.Sample) {
	c.live.Truth[actor] = append(c.live.Truth[actor], record.PoseOf(actor, s))
	c.next.Truth(actor, s)
}

// Practice records a practice match as cfg says and returns what the player saw.
func Practice(cfg Config) (*Live, error) {
	if cfg.FPS == 0 {
		cfg.FPS = 60
	}
	if cfg.HostFPS == 0 {
		cfg.HostFPS = session.DefaultHostTickRate
	}
	hostEvery := max(1, int(math.Round(cfg.FPS/cfg.HostFPS)))
	judge, err := referee.New(cfg.Map, combat.Rules{}, game.DeadReckoning().Reckon)
	if err != nil {
		return nil, err
	}
	// The host's own bots are one player's actors: let it have them all.
	// The host records the player's own updates as they reach it, as a practice's
	// in-process host does; the sink gets its writer once the file is made.
	sink := &record.Sink{}
	uplink := record.NewUplinkTap(sink, nil)
	// The host accepts positions anywhere on the map, a crowd of bots' spawns in
	// one burst and their shots (both control messages) at up to one a second each.
	rig, err := gametest.New(gametest.Config{Link: cfg.Link, Seed: cfg.Seed, Judge: judge, Mover: referee.NewMover(tank.Spec{}, nil), Tap: uplink,
		Extent: max(cfg.Map.Size()[0], cfg.Map.Size()[1]) / 2,
		Limits: net.Limits{MaxActorsPerPlayer: max(cfg.Bots, net.DefaultMaxActorsPerPlayer),
			ControlRate: max(float64(cfg.Bots), net.DefaultControlRate), ControlBurst: max(2*float64(cfg.Bots), net.DefaultControlBurst)}})
	if err != nil {
		return nil, err
	}
	defer rig.Close()
	hostLink, err := rig.Join()
	if err != nil {
		return nil, err
	}
	playerLink, err := rig.Join()
	if err != nil {
		return nil, err
	}
	live := &Live{Path: filepath.Join(cfg.Dir, "practice.tread"), Player: playerLink.ID(),
		Truth: map[uint32][]record.Pose{}, Received: map[uint32][]deadreckon.State{}}
	rules, _ := combat.Rules{}.WithDefaults()
	meta := record.Meta{Perspective: record.Client, Program: "recordtest", Map: cfg.Map.Name(),
		Recorder: "ann", Player: playerLink.ID(), DeadReckoning: game.DeadReckoning(), Rules: mustJSON(rules),
		Link: &record.LinkMeta{Latency: cfg.Link.Latency.Seconds(), Jitter: cfg.Link.Jitter.Seconds(), Loss: cfg.Link.Loss}}
	w, err := record.Create(live.Path, meta, cfg.Writer)
	if err != nil {
		return nil, err
	}
	sink.Swap(w)
	uplink.SetPlayer(playerLink.ID())
	var view game.Observer = record.NewMatchTap(sink, record.TapOptions{View: true})
	if cfg.Ring > 0 {
		if live.Ring, err = record.NewRing(meta, cfg.Ring, record.Config{}); err != nil {
			w.Close()
			return nil, err
		}
		view = record.Taps{view.(*record.MatchTap), record.NewMatchTap(record.NewSink(live.Ring.Writer()), record.TapOptions{View: true})}
	}
	host, err := game.NewMatch(game.Config{Map: cfg.Map, NoPlayer: true, Bots: cfg.Bots, Patrol: cfg.Patrol, Seed: cfg.Seed + 1,
		Observer: &capture{next: record.NewMatchTap(sink, record.TapOptions{Sent: true}), live: live}}, hostLink)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("host match: %w", err)
	}
	defer host.Close()
	player, err := game.NewMatch(game.Config{Map: cfg.Map, Name: "ann", Seed: cfg.Seed,
		Observer: &capture{next: view, live: live, events: true}},
		playerLink)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("player match: %w", err)
	}
	defer player.Close() // a crowd's reckoning goroutines
	live.Self, _ = player.Self()
	player.SetCamera(cfg.Camera)
	var snap, hostSnap game.Snapshot
	ticks := int(math.Round(cfg.Seconds * cfg.FPS))
	for tick := 1; tick <= ticks; tick++ {
		now := float64(tick) / cfg.FPS
		rig.SetNow(now)
		if tick%hostEvery == 0 {
			if err := host.Step(now, physics.Input{}); err != nil {
				return nil, err
			}
			host.Snapshot(&hostSnap)
			live.HostShown = append(live.HostShown, shown(now, &hostSnap))
		}
		in := physics.Input{Throttle: 1, Steer: math.Sin(now / 2), AimYaw: now / 3}
		if tick%int(2*cfg.FPS) == 0 {
			player.Fire()
		}
		if err := player.Step(now, in); err != nil {
			return nil, err
		}
		player.Snapshot(&snap)
		live.Frames = append(live.Frames, shown(now, &snap))
		if snap.Combat.Wreck {
			live.Died = true
			if cfg.UntilDeath {
				break
			}
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	live.Stats = w.Stats()
	return live, nil
}

// shown is where snap shows every remote tank at time now.
func shown(now float64, snap *game.Snapshot) Frame {
	f := Frame{Time: now, Shown: make(map[uint32]mgl64.Vec3, len(snap.Tanks))}
	for _, tv := range snap.Tanks {
		if !tv.Local {
			f.Shown[tv.ID] = tv.Position
		}
	}
	return f
}

// mustJSON encodes the game's rules for the metadata.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("recordtest: " + err.Error())
	}
	return b
}
