package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/record"
	"github.com/treadline/treadline/terrain"
)

// RecordExt is the extension of a recording's file name.
const RecordExt = ".tread"

// Recording asks a session to record its match (package record; RECORDING.md). The
// zero value records nothing.
type Recording struct {
	// Path is the file to record into (tanks -record FILE), created or truncated.
	Path string
	// Dir is a directory to record into, one file per match named after its start
	// (tankhost -record DIR); it is created if missing. Path wins when both are set.
	Dir string
	// Program names the recording program in the file's metadata.
	Program string
	// Now tells the wall clock, for the metadata's start time and for the names of the
	// files in Dir. If nil, the files are numbered and the start time left out.
	Now func() time.Time
	// Report hears, in one line, why recording could not start or stopped (an
	// unwritable path, a full disk). The match goes on without recording. If nil,
	// the session's logger hears it.
	Report func(error)
	// Recent, when positive, keeps this long of the player's view of the match in
	// memory besides (Session.Recent, a record.Ring): what the kill camera replays
	// after a death. Zero keeps nothing in memory.
	Recent time.Duration
}

// On reports whether r asks for a recording into a file.
func (r Recording) On() bool { return r.Path != "" || r.Dir != "" }

// recorder is a session's recording: the sink its taps write to and how it makes
// the next file.
type recorder struct {
	cfg  Recording
	meta record.Meta
	sink *record.Sink
	mu   sync.Mutex
	n    int // files made in Dir
	// ring keeps the last cfg.Recent of the player's view in memory; ringSink
	// writes to it. Both are nil without.
	ring     *record.Ring
	ringSink *record.Sink
	// uplink records the player's own updates as an in-process host took them in.
	uplink *record.UplinkTap
}

// newRecorder returns the recorder of cfg with meta, whose sink has no writer yet,
// or nil when cfg asks for no recording, to a file or in memory. report hears
// failures when cfg.Report is nil.
func newRecorder(cfg Recording, meta record.Meta, report func(error)) *recorder {
	if !cfg.On() && cfg.Recent <= 0 {
		return nil
	}
	if cfg.Report == nil {
		cfg.Report = report
	}
	meta.Program = cfg.Program
	return &recorder{cfg: cfg, meta: meta, sink: &record.Sink{}}
}

// start opens the first file and makes the sink write to it, and starts the ring. A
// failure is reported and leaves the match unrecorded.
func (r *recorder) start() {
	if r == nil {
		return
	}
	if r.cfg.Recent > 0 {
		// The ring is the player's view whoever hosts: a client's, owned by the player.
		meta := r.meta
		meta.Perspective = record.Client
		ring, err := record.NewRing(meta, r.cfg.Recent, record.Config{OnError: r.cfg.Report})
		if err != nil {
			r.cfg.Report(err)
		} else {
			r.ring, r.ringSink = ring, record.NewSink(ring.Writer())
		}
	}
	if !r.cfg.On() {
		return
	}
	w, err := r.open()
	if err != nil {
		r.cfg.Report(err)
		return
	}
	r.sink.Swap(w)
}

// open creates the next recording file.
func (r *recorder) open() (*record.Writer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	meta := r.meta
	var stamp time.Time
	if r.cfg.Now != nil {
		stamp = r.cfg.Now()
		meta.Started = stamp.UTC().Format(time.RFC3339)
	}
	path := r.cfg.Path
	if path == "" {
		if err := os.MkdirAll(r.cfg.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
		r.n++
		name := fmt.Sprintf("match-%03d", r.n)
		if !stamp.IsZero() {
			name = fmt.Sprintf("match-%s-%03d", stamp.UTC().Format("20060102-150405"), r.n)
		}
		path = filepath.Join(r.cfg.Dir, name+RecordExt)
	}
	return record.Create(path, meta, record.Config{OnError: r.cfg.Report})
}

// Recording reports whether the session's match is being recorded into a file now:
// a recording was asked for (Recording.On), its file opened, and no write to it has
// failed. The kill camera's memory (Recording.Recent) is not a recording.
func (s *Session) Recording() bool {
	if s == nil || s.rec == nil {
		return false
	}
	w := s.rec.sink.Writer()
	return w != nil && w.Err() == nil
}

// close ends the recording in progress and stops the ring's.
func (r *recorder) close() error {
	if r == nil {
		return nil
	}
	if r.ring != nil {
		r.ringSink.Swap(nil)
		_ = r.ring.Close() // memory: its errors were reported as they came
	}
	if w := r.sink.Swap(nil); w != nil {
		return w.Close()
	}
	return nil
}

// setPlayer names the recording player once it has joined: its id goes in the
// metadata, and the uplink tap learns which tanks are its own.
func (r *recorder) setPlayer(id uint32) {
	if r == nil {
		return
	}
	r.meta.Player = id
	if r.uplink != nil {
		r.uplink.SetPlayer(id)
	}
}

// recent returns the ring the player's view is kept in, or nil.
func (r *recorder) recent() *record.Ring {
	if r == nil {
		return nil
	}
	return r.ring
}

// recordMeta is the metadata of a recording of a match on mp with dead reckoning dr
// and rules (zero fields: the defaults), seen from perspective by player id, called
// name, over an impaired link.
func recordMeta(p record.Perspective, mp *terrain.Map, dr deadreckon.PublisherConfig, rules combat.Rules, name string, id uint32, link impair.Link) record.Meta {
	if dr == (deadreckon.PublisherConfig{}) {
		dr = game.DeadReckoning()
	}
	if full, err := rules.WithDefaults(); err == nil {
		rules = full
	}
	js, _ := json.Marshal(rules) // plain numbers encode
	m := record.Meta{Perspective: p, Map: mp.Name(), MapSeed: mp.Seed(), Extent: mapExtent(mp),
		TickRate: DefaultHostTickRate, Heartbeat: game.PublishHeartbeat, Recorder: name, Player: id,
		Rules: js, DeadReckoning: dr}
	if link.Active() {
		m.Link = &record.LinkMeta{Latency: link.Latency.Seconds(), Jitter: link.Jitter.Seconds(), Loss: link.Loss}
	}
	return m
}

// viewTap is the Observer that records a player's own view of the match into the
// file and the ring; nil without either.
func (r *recorder) viewTap() game.Observer {
	if r == nil {
		return nil
	}
	var file *record.MatchTap
	if r.cfg.On() {
		file = record.NewMatchTap(r.sink, record.TapOptions{View: true})
	}
	return observer(file, r.ringTap())
}

// ringTap is the tap that keeps the player's view in the ring; nil without one.
func (r *recorder) ringTap() *record.MatchTap {
	if r == nil || r.ring == nil {
		return nil
	}
	return record.NewMatchTap(r.ringSink, record.TapOptions{View: true})
}

// truthTap is the tap that records the true poses of a host's tanks (and with sent,
// their updates) into the file; shift, if set, puts the host's times on the
// recording's clock. It is nil without a file.
func (r *recorder) truthTap(sent bool, shift func() float64) *record.MatchTap {
	if r == nil || !r.cfg.On() {
		return nil
	}
	return record.NewMatchTap(r.sink, record.TapOptions{Sent: sent, Shift: shift})
}

// observer is the Observer of the taps that are not nil: nil when none is.
func observer(taps ...*record.MatchTap) game.Observer {
	var ts record.Taps
	for _, t := range taps {
		if t != nil {
			ts = append(ts, t)
		}
	}
	switch len(ts) {
	case 0:
		return nil
	case 1:
		return ts[0]
	}
	return ts
}

// uplinkTap is the net.Tap of a practice's in-process host that records the
// player's own updates as they arrive there (see record.UplinkTap); shift puts the
// host's times on the recording's clock. It is nil without a file.
func (r *recorder) uplinkTap(shift func() float64) net.Tap {
	if r == nil || !r.cfg.On() {
		return nil
	}
	r.uplink = record.NewUplinkTap(r.sink, shift)
	return r.uplink
}

// hostTap is the net.Tap that records what a host accepts and sends; with a
// directory, a new file starts at each match's end. It is nil without a recorder.
func (r *recorder) hostTap() net.Tap {
	if r == nil || !r.cfg.On() {
		return nil
	}
	var next func() (*record.Writer, error)
	if r.cfg.Path == "" {
		next = r.open
	}
	return record.NewHostTap(r.sink, next, r.cfg.Report)
}

// warnRecording is the default report of a recording's failure: a log line.
func warnRecording(log interface{ Warn(string, ...any) }) func(error) {
	return func(err error) { log.Warn("recording stopped", "err", err) }
}
