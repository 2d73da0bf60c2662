package net

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// witnessJudge is a Judge that counts what the host says it sent each player.
type witnessJudge struct {
	quietJudge
	sent map[uint32]map[[2]float64]int // player → (actor, update time) → sends
}

func (j *witnessJudge) Sent(to, actor uint32, s deadreckon.State, at float64) {
	if j.sent[to] == nil {
		j.sent[to] = map[[2]float64]int{}
	}
	j.sent[to][[2]float64{float64(actor), s.Time}]++
}

// TestOfflineWitnessHearsEverySend drives an offline host's crowd, with the scheduler
// engaged and a budget too small for everything: every record a player's datagrams
// hold is one the host told the judge it sent that player (net.Witness), and no other,
// once, or twice when the host repeated it.
func TestOfflineWitnessHearsEverySend(t *testing.T) {
	j := &witnessJudge{sent: map[uint32]map[[2]float64]int{}}
	o, err := NewOffline(HostConfig{Judge: j, Limits: Limits{Downlink: 3000, ZonesAbove: -1, RespawnInterval: -1},
		Match: MatchSettings{Extent: 400}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	type tank struct {
		player, actor uint32
		pos           mgl64.Vec3
		seq           uint16
	}
	var tanks []*tank
	for i := range n {
		p, err := o.Join(fmt.Sprintf("p%02d", i), 0)
		if err != nil {
			t.Fatal(err)
		}
		pos := mgl64.Vec3{float64(i%8)*80 - 300, 0, float64(i/8)*80 - 200}
		a, err := o.Spawn(p, fmt.Sprintf("p%02d", i), i%2, tankAt(pos[0], pos[2]), 0)
		if err != nil {
			t.Fatal(err)
		}
		tanks = append(tanks, &tank{player: p, actor: a, pos: pos})
	}
	got := map[uint32]map[[2]float64]int{}
	w := wire.NewBatchWriter(0)
	for step := 1; step <= 1000; step++ {
		now := float64(step) * 0.01
		at := time.Duration(now * float64(time.Second))
		if step%10 == 0 {
			for i, tk := range tanks {
				tk.pos[0] += 5 * math.Cos(float64(i)) * 0.1
				s := tankAt(tk.pos[0], tk.pos[2])
				s.Velocity = mgl64.Vec3{5 * math.Cos(float64(i)), 0, 0}
				s.Time = now
				tk.seq++
				w.Reset()
				if err := w.Add(&wire.Update{Actor: wire.ActorID(tk.actor), Seq: tk.seq, State: s}); err != nil {
					t.Fatal(err)
				}
				o.Datagram(tk.player, w.Bytes(), at)
			}
		}
		o.Step(at)
		for _, tk := range tanks {
			o.Take(tk.player, func(b []byte) {
				r, err := wire.ReadBatch(b)
				if err != nil {
					t.Fatal(err)
				}
				var u wire.Update
				for r.Next(&u) {
					if got[tk.player] == nil {
						got[tk.player] = map[[2]float64]int{}
					}
					got[tk.player][[2]float64{float64(u.Actor), u.State.Time}]++
				}
			}, nil)
		}
	}
	if st := o.Stats(); st.Accepted == 0 || st.Overwritten == 0 {
		t.Fatalf("accepted %d, overwritten %d: the budget never had to choose", st.Accepted, st.Overwritten)
	}
	// A record the host repeats (zones_repeat.go) is in the datagrams twice and told
	// to the judge once: at most one copy more than the judge heard of, and as many
	// more in all as the host repeated.
	records, extra := 0, 0
	for p, recs := range got {
		for k, c := range recs {
			records += c
			if h := j.sent[p][k]; h == 0 || c < h || c > h+1 {
				t.Errorf("player %d received actor %v's update of %.2f s %d times; the judge heard of %d", p, k[0], k[1], c, h)
			} else {
				extra += c - h
			}
		}
		for k, c := range j.sent[p] {
			if recs[k] == 0 {
				t.Errorf("the judge heard player %d was sent actor %v's update of %.2f s (%d times); it never was", p, k[0], k[1], c)
			}
		}
	}
	if records == 0 {
		t.Fatal("no record sent")
	}
	if st := o.Stats(); uint64(extra) != st.Repeated {
		t.Errorf("%d copies beyond those the judge heard of; the host repeated %d records", extra, st.Repeated)
	}
}
