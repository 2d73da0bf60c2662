package session

import (
	"context"
	"fmt"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/disgate"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/terrain"
)

// disJudge is the host's referee with a DIS gateway told of every tank it hears
// of: spawns, accepted updates, departures and the clock (for heartbeats). The
// gateway's own DIS entities are shown, not refereed: the referee never hears of
// them (no scoreboard line, no hits on them, no shots of theirs), and they are
// placed where their simulations put them. Its methods run on the host's run loop.
type disJudge struct {
	*referee.Referee
	gw  *disgate.Gateway
	dis map[uint32]bool // the DIS entities' actors
}

// newDISJudge returns r with gw told of every tank.
func newDISJudge(r *referee.Referee, gw *disgate.Gateway) disJudge {
	return disJudge{Referee: r, gw: gw, dis: map[uint32]bool{}}
}

// Spawned implements net.Judge.
func (j disJudge) Spawned(actor, owner uint32, name string, team int, s deadreckon.State, at float64) {
	if j.gw.IsMember(owner) {
		j.dis[actor] = true
		return
	}
	j.Referee.Spawned(actor, owner, name, team, s, at)
	j.gw.Spawned(actor, owner, name, team, s, at)
}

// Relayed implements net.Judge.
func (j disJudge) Relayed(actor uint32, s deadreckon.State, at float64) {
	if j.dis[actor] {
		return
	}
	j.Referee.Relayed(actor, s, at)
	j.gw.Relayed(actor, s, at)
}

// Despawned implements net.Judge.
func (j disJudge) Despawned(actor uint32, at float64) {
	if j.dis[actor] {
		delete(j.dis, actor)
		return
	}
	j.Referee.Despawned(actor, at)
	j.gw.Despawned(actor, at)
}

// Tick implements net.Judge.
func (j disJudge) Tick(at float64) {
	j.Referee.Tick(at)
	j.gw.Tick(at)
}

// Place implements net.Placer: a DIS entity enters where its simulation has it.
func (j disJudge) Place(owner uint32, name string, team int, s deadreckon.State, at float64) (deadreckon.State, error) {
	if j.gw.IsMember(owner) {
		return s, nil
	}
	return j.Referee.Place(owner, name, team, s, at)
}

// startDIS joins gw to host as the in-process player its DIS entities play under,
// set on mp's ground, and starts its receiving; both end with ctx or the gateway.
func startDIS(ctx context.Context, gw *disgate.Gateway, host *net.Host, mp *terrain.Map, report func(error)) error {
	member, err := host.JoinLocal(net.LocalConfig{Name: "DIS", Service: true})
	if err != nil {
		return fmt.Errorf("dis gateway: %w", err)
	}
	ground := func(x, z float64) float64 {
		h, _ := mp.SurfaceAt(x, z)
		return h
	}
	go func() {
		if err := gw.Receive(); err != nil {
			report(err)
		}
	}()
	go func() {
		_ = gw.Run(ctx, member, ground, 0)
		member.Close()
	}()
	return nil
}
