package replay

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"unsafe"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/record"
)

// Recording is a recording read into memory and indexed for playback and
// measurement. It is not modified once loaded, so several Players and lab runs may
// share one.
type Recording struct {
	// Meta is the recording's metadata.
	Meta record.Meta
	// Stopped says in one line where reading a damaged or truncated file stopped; nil
	// when the file was read to its clean end.
	Stopped error
	// Start and End are the times of the first and last records, s on the recorder's
	// clock.
	Start, End float64
	// Events are what the recorder's match handled, in order, each at the time it
	// handled it: spawns, received state updates (with Event.Arrival), despawns, chat
	// and the host's game messages. The recorder's own published updates are among
	// them as state updates arriving as they were sent, so that every tank replays.
	Events []Item
	// Frames are the recorder's ticks, in order.
	Frames []Frame
	// Tanks describes every tank that entered the match, by actor id.
	Tanks map[uint32]*Tank
	// Kills lists every tank destroyed, in order.
	Kills []Kill
	// Records counts the records read.
	Records int

	latency float64 // see Latency
}

// Item is one event of a recording at the time the recorder handled it.
type Item struct {
	// Time is when the recorder handled the event, s on its clock.
	Time float64
	// Event is the event as a net.Client delivers it. Event.Arrival of a state update
	// is when its datagram arrived.
	Event net.Event
}

// Frame is one tick of the recorder's match.
type Frame struct {
	// Time is the tick's time, s on the recorder's clock; ClockOffset the host clock
	// minus the recorder's then, s.
	Time, ClockOffset float64
}

// Tank is what a recording knows of one tank (one actor: a respawned tank comes back
// under a new actor id).
type Tank struct {
	// ID is the actor id; Owner the owning player (0: the host); Name and Team as
	// spawned.
	ID, Owner uint32
	Name      string
	Team      int
	// Spawned and Gone are when it entered and left the match, s (Gone is +Inf for a
	// tank still there at the end).
	Spawned, Gone float64
	// Truth holds its true poses, in time order, when the recorder simulated it.
	Truth []record.Pose
	// Sent holds the updates its owner published, when the recording holds them (the
	// recorder's own tanks): State.Time is the publish time on the recorder's clock.
	Sent []deadreckon.State
	// SentAt holds the times its owner published an update, when the recorder was
	// its owner (its own tanks, practice's bots), s on the recorder's clock.
	SentAt []float64
	// Received holds the updates of it the recorder received (or, for a host,
	// accepted), in order; Arrival their arrival times. For the recorder's own tanks
	// these are its updates as the host took them in, when the recording knows it
	// (a practice's in-process host): the recorder's own link as it was.
	Received []Received
	// Own reports one of the recorder's own tanks (its player owns it).
	Own bool
}

// Received is one update of a tank as the recorder received it.
type Received struct {
	// State is the update, State.Time the owner's stamp on the host clock.
	State deadreckon.State
	// Arrival is when it arrived, s on the recorder's clock; Handled when the
	// recorder's match took it in.
	Arrival, Handled float64
}

// Kill is a tank destroyed.
type Kill struct {
	// Time is when the recorder heard of it, s on its clock; HostTime when the host
	// decided it, s on the host clock.
	Time, HostTime float64
	// Shooter and Target are the actors; Shot the shooter's shot number.
	Shooter, Target uint32
	Shot            uint16
}

// Load reads the recording at path. A damaged or truncated file loads what is
// readable and says where it stopped in Stopped; a file that is not a recording, or of
// another version, is an error.
func Load(path string) (*Recording, error) {
	r, err := record.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return Read(r)
}

// DefaultMaxHeld is how much memory, in bytes, Read lets a recording's events take:
// about three hours of a sixteen-tank match.
const DefaultMaxHeld = 1 << 30

// ErrTooLarge reports a recording that holds more than a replay keeps in memory.
var ErrTooLarge = errors.New("replay: recording too large to hold")

// Read reads the rest of r's recording, within DefaultMaxHeld.
func Read(r *record.Reader) (*Recording, error) { return ReadWithin(r, DefaultMaxHeld) }

// ReadWithin reads the rest of r's recording while what it holds takes at most
// maxHeld bytes; past that it stops, keeps what it read and says in Stopped at which
// block (an error wrapping ErrTooLarge). Together with the reader's bound on what a
// block may inflate to, memory stays within maxHeld whatever the file claims.
func ReadWithin(r *record.Reader, maxHeld int64) (*Recording, error) {
	b := newBuilder(r.Meta())
	var rec record.Record
	var held int64
	for r.Next(&rec) {
		if held += recordCost(&rec); held > maxHeld {
			b.rec.Stopped = fmt.Errorf("recording stopped at block %d (byte %d, %s into the match): its events take over %d MiB, what a replay holds: %w",
				r.Block(), r.Offset(), record.Clock(rec.Time), maxHeld>>20, ErrTooLarge)
			break
		}
		b.add(&rec)
	}
	if b.rec.Stopped == nil {
		b.rec.Stopped = r.Err()
	}
	b.finish()
	if b.rec.Records == 0 && b.rec.Stopped != nil {
		return nil, b.rec.Stopped
	}
	return b.rec, nil
}

// Memory a record takes once added, bytes, as appended to its slices (and twice
// that while a slice grows).
var (
	costEvent = int64(unsafe.Sizeof(Item{}))
	costState = costEvent + int64(unsafe.Sizeof(Received{}))
	costSent  = costEvent + int64(unsafe.Sizeof(deadreckon.State{})) + 8
	costTruth = int64(unsafe.Sizeof(record.Pose{}))
	costFrame = int64(unsafe.Sizeof(Frame{}))
)

// recordCost is what rec takes in a Recording, bytes.
func recordCost(rec *record.Record) int64 {
	switch rec.Kind {
	case record.KindState:
		return 2 * costState
	case record.KindSent:
		return 2 * costSent
	case record.KindTruth, record.KindTruthKey:
		return 2 * costTruth
	case record.KindFrame:
		return 2 * costFrame
	case record.KindSentMark:
		return 16
	case record.KindJoin:
		return 64 + int64(len(rec.Name))
	}
	return 2*costEvent + 256 // a message: its event, and the message it points to
}

// builder turns records into a Recording.
type builder struct {
	rec *Recording
	// uplink holds the indices of the events of received updates: those of the
	// recorder's own tanks (its updates as the host took them in) are dropped once
	// every spawn is known, for its own tanks replay from what they published.
	uplink []int
	names  map[uint32]string // player names, from joins and spawns
	offset float64           // the last frame's clock offset
	first  bool
}

func newBuilder(m record.Meta) *builder {
	return &builder{
		rec:   &Recording{Meta: m, Tanks: make(map[uint32]*Tank)},
		names: make(map[uint32]string),
		first: true,
	}
}

// add takes in one record.
func (b *builder) add(r *record.Record) {
	rec := b.rec
	rec.Records++
	if b.first {
		rec.Start, b.first = r.Time, false
	}
	rec.Start, rec.End = math.Min(rec.Start, r.Time), math.Max(rec.End, r.Time)
	switch r.Kind {
	case record.KindFrame:
		b.offset = r.ClockOffset
		rec.Frames = append(rec.Frames, Frame{Time: r.Time, ClockOffset: r.ClockOffset})
	case record.KindJoin:
		b.names[r.Player] = r.Name
	case record.KindTruth, record.KindTruthKey:
		t := b.tank(r.Truth.Actor)
		t.Truth = append(t.Truth, r.Truth)
	case record.KindSent:
		b.sent(r)
	case record.KindSentMark:
		t := b.tank(r.Actor)
		t.SentAt = append(t.SentAt, r.Time)
	case record.KindState:
		b.state(r)
	case record.KindMessage:
		b.message(r)
	}
}

// tank returns the tank with actor id, creating an anonymous one.
func (b *builder) tank(id uint32) *Tank {
	t := b.rec.Tanks[id]
	if t == nil {
		t = &Tank{ID: id, Spawned: math.Inf(1), Gone: math.Inf(1)}
		b.rec.Tanks[id] = t
	}
	return t
}

// sent takes in an update the recorder published: the recorder's own tanks replay
// from these, as arriving at once.
func (b *builder) sent(r *record.Record) {
	t := b.tank(uint32(r.Update.Actor))
	t.Sent = append(t.Sent, r.Update.State)
	t.SentAt = append(t.SentAt, r.Time)
	if !t.Own {
		return
	}
	s := r.Update.State
	s.Time = math.Max(0, r.Time+b.offset) // on the host clock, as received updates are
	b.push(r.Time, net.Event{Kind: net.EventState, Actor: t.ID, Owner: t.Owner, State: s, Arrival: r.Time})
}

// state takes in a received (or, for a host, accepted) update.
func (b *builder) state(r *record.Record) {
	t := b.tank(uint32(r.Update.Actor))
	s := r.Update.State
	// The wire carries the host clock modulo 2³² ms; recordings are far shorter.
	s.Time = unwrap(s.Time, r.Time+b.offset)
	t.Received = append(t.Received, Received{State: s, Arrival: r.Arrival, Handled: r.Time})
	if b.rec.Meta.Perspective == record.Client {
		b.uplink = append(b.uplink, len(b.rec.Events))
	}
	b.push(r.Time, net.Event{Kind: net.EventState, Actor: t.ID, Owner: t.Owner, State: s, Arrival: r.Arrival})
}

// dropUplink drops the events of the recorder's own updates as the host took them
// in: a spawn may come after them, so this waits for the end.
func (b *builder) dropUplink() {
	drop := make(map[int]bool)
	for _, i := range b.uplink {
		if t := b.rec.Tanks[b.rec.Events[i].Event.Actor]; t != nil && t.Own {
			drop[i] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	kept := b.rec.Events[:0]
	for i, it := range b.rec.Events {
		if !drop[i] {
			kept = append(kept, it)
		}
	}
	b.rec.Events = kept
}

// unwrap maps a wire timestamp to the host time nearest near.
func unwrap(t, near float64) float64 {
	return t + math.Round((near-t)/wire.TimeWrap)*wire.TimeWrap
}

// message takes in a wire message.
func (b *builder) message(r *record.Record) {
	switch m := r.Message.(type) {
	case *wire.Spawn:
		t := b.tank(uint32(m.Actor))
		t.Owner, t.Name, t.Team = uint32(m.Owner), m.Name, int(m.Team)
		t.Spawned = math.Min(t.Spawned, r.Time)
		t.Own = b.rec.Meta.Perspective == record.Client && t.Owner == b.rec.Meta.Player
		if t.Own {
			b.replaced(t, r.Time)
		}
		if _, ok := b.names[t.Owner]; !ok {
			b.names[t.Owner] = m.Name
		}
		s := m.State
		s.Time = unwrap(s.Time, r.Time+b.offset)
		b.push(r.Time, net.Event{Kind: net.EventSpawn, Actor: t.ID, Owner: t.Owner, Name: m.Name, Team: t.Team, State: s})
	case *wire.Despawn:
		t := b.tank(uint32(m.Actor))
		t.Gone = r.Time
		b.push(r.Time, net.Event{Kind: net.EventDespawn, Actor: t.ID, Owner: t.Owner, Text: m.Reason.String()})
	case *wire.Chat:
		b.push(r.Time, net.Event{Kind: net.EventChat, Owner: uint32(m.From), Name: b.names[uint32(m.From)], Text: m.Text})
	case *wire.Destroy:
		b.rec.Kills = append(b.rec.Kills, Kill{Time: r.Time, HostTime: m.Time, Shooter: uint32(m.Shooter),
			Target: uint32(m.Target), Shot: m.Shot})
		b.push(r.Time, net.Event{Kind: net.EventMessage, Message: m})
	case *wire.Fire, *wire.HitResult, *wire.Scores:
		b.push(r.Time, net.Event{Kind: net.EventMessage, Message: m})
	case *wire.Route:
		route, err := net.RouteOf(m)
		if err != nil {
			return // as a receiver drops it
		}
		t := b.tank(uint32(m.Actor))
		b.push(r.Time, net.Event{Kind: net.EventRoute, Actor: t.ID, Owner: t.Owner, Route: route, RouteID: m.Route})
	case *wire.Progress:
		t := b.tank(uint32(m.Actor))
		p := m.Progress
		p.Time = unwrap(p.Time, r.Time+b.offset)
		b.push(r.Time, net.Event{Kind: net.EventProgress, Actor: t.ID, Owner: t.Owner, Progress: p, Arrival: r.Time})
	}
}

// replaced ends the recorder's own tanks of t's name still in the match: a tank that
// respawns comes back under a new actor id, and a link that does not echo its owner's
// despawn leaves the old one without an end.
func (b *builder) replaced(t *Tank, at float64) {
	for _, u := range b.rec.Tanks {
		if u != t && u.Own && u.Name == t.Name && math.IsInf(u.Gone, 1) {
			u.Gone = at
			b.push(at, net.Event{Kind: net.EventDespawn, Actor: u.ID, Owner: u.Owner, Text: wire.DespawnRemoved.String()})
		}
	}
}

func (b *builder) push(t float64, ev net.Event) {
	b.rec.Events = append(b.rec.Events, Item{Time: t, Event: ev})
}

// finish sorts what needs sorting once every record is in.
func (b *builder) finish() {
	rec := b.rec
	b.dropUplink()
	// Records are written in the order the recorder took them in; times from two
	// goroutines (practice's player and host) may interleave slightly out of order.
	sort.SliceStable(rec.Events, func(i, j int) bool { return rec.Events[i].Time < rec.Events[j].Time })
	for _, t := range rec.Tanks {
		slices.SortStableFunc(t.Truth, func(a, b record.Pose) int { return cmpFloat(a.Time, b.Time) })
		if math.IsInf(t.Spawned, 1) && len(t.Truth) > 0 {
			t.Spawned = t.Truth[0].Time
		}
	}
	rec.latency = rec.medianLatency()
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Duration returns End − Start, s.
func (r *Recording) Duration() float64 { return r.End - r.Start }

// TankIDs returns the ids of every tank, in increasing order.
func (r *Recording) TankIDs() []uint32 {
	ids := make([]uint32, 0, len(r.Tanks))
	for id := range r.Tanks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ClockOffset returns the clock offset in force at time t: the last frame's at or
// before t (the first frame's before it; 0 without frames).
func (r *Recording) ClockOffset(t float64) float64 {
	i := sort.Search(len(r.Frames), func(i int) bool { return r.Frames[i].Time > t })
	switch {
	case len(r.Frames) == 0:
		return 0
	case i == 0:
		return r.Frames[0].ClockOffset
	}
	return r.Frames[i-1].ClockOffset
}

// TruthAt returns the true pose of the tank at time t, interpolated between the two
// recorded poses around it (linearly, and along the shorter arc), and false when t
// lies outside the tank's truth or its poses there are further apart than maxGap
// seconds.
func (t *Tank) TruthAt(at, maxGap float64) (record.Pose, bool) {
	tr := t.Truth
	i := sort.Search(len(tr), func(i int) bool { return tr[i].Time > at })
	switch {
	case len(tr) == 0 || i == 0:
		return record.Pose{}, false
	case i == len(tr):
		if at-tr[i-1].Time > maxGap {
			return record.Pose{}, false
		}
		return tr[i-1], true
	}
	a, b := tr[i-1], tr[i]
	h := b.Time - a.Time
	if h > maxGap || b.Break {
		return a, at-a.Time <= maxGap
	}
	u := (at - a.Time) / h
	p := a
	p.Time = at
	p.Position = a.Position.Add(b.Position.Sub(a.Position).Mul(u))
	p.Orientation = geom.SlerpShort(a.Orientation, b.Orientation, u)
	p.Turret = a.Turret + math.Remainder(b.Turret-a.Turret, 2*math.Pi)*u
	p.Gun = a.Gun + (b.Gun-a.Gun)*u
	return p, true
}

// errNoTruth is returned for measurements of a recording without true poses.
var errNoTruth = errors.New("replay: the recording holds no true pose")

// TruthTanks returns the tanks whose truth the recording holds, grouped by owner and
// name: a tank destroyed and respawned comes back under a new actor id, and its
// lives, in order, make one Driver.
func (r *Recording) TruthTanks() ([]Driver, error) {
	byKey := map[string]*Driver{}
	var order []string
	for _, id := range r.TankIDs() {
		t := r.Tanks[id]
		if len(t.Truth) < 2 {
			continue
		}
		key := fmt.Sprintf("%d/%s", t.Owner, t.Name)
		d := byKey[key]
		if d == nil {
			d = &Driver{Owner: t.Owner, Name: t.Name}
			byKey[key] = d
			order = append(order, key)
		}
		d.Lives = append(d.Lives, t)
	}
	if len(order) == 0 {
		return nil, errNoTruth
	}
	out := make([]Driver, 0, len(order))
	for _, k := range order {
		d := byKey[k]
		slices.SortFunc(d.Lives, func(a, b *Tank) int { return cmpFloat(a.Truth[0].Time, b.Truth[0].Time) })
		if d.Name == "" {
			d.Name = fmt.Sprintf("actor %d", d.Lives[0].ID)
		}
		out = append(out, *d)
	}
	return out, nil
}

// Driver is one player's or bot's tank through all its lives.
type Driver struct {
	// Owner is the owning player; Name the tank's name.
	Owner uint32
	Name  string
	// Lives are its tanks (actors) in order, each with its truth.
	Lives []*Tank
}

// Latency returns the median one-way delay of the updates the recorder received,
// from their owners' stamps (host clock) to their arrival, s; 0 without any.
func (r *Recording) Latency() float64 { return r.latency }

// medianLatency computes Latency once the recording is read.
func (r *Recording) medianLatency() float64 {
	var lat []float64
	for _, t := range r.Tanks {
		if t.Own {
			continue
		}
		for _, u := range t.Received {
			if d := u.Arrival + r.ClockOffset(u.Arrival) - u.State.Time; d >= 0 && d < 5 {
				lat = append(lat, d)
			}
		}
	}
	if len(lat) == 0 {
		return 0
	}
	slices.Sort(lat)
	return lat[len(lat)/2]
}

// ReadRing reads what a record.Ring holds now: the last seconds of a match, opened by
// the tanks in it before them. Recording goes on into the ring.
func ReadRing(ring *record.Ring) (*Recording, error) {
	r, err := ring.Reader()
	if err != nil {
		return nil, err
	}
	return Read(r)
}
