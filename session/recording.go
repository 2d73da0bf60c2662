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
}

// On reports whether r asks for a recording.
func (r Recording) On() bool { return r.Path != "" || r.Dir != "" }

// recorder is a session's recording: the sink its taps write to and how it makes
// the next file.
type recorder struct {
	cfg  Recording
	meta record.Meta
	sink *record.Sink
	mu   sync.Mutex
	n    int // files made in Dir
}

// newRecorder returns the recorder of cfg with meta, whose sink has no writer yet,
// or nil when cfg asks for no recording. report hears failures when cfg.Report is nil.
func newRecorder(cfg Recording, meta record.Meta, report func(error)) *recorder {
	if !cfg.On() {
		return nil
	}
	if cfg.Report == nil {
		cfg.Report = report
	}
	meta.Program = cfg.Program
	return &recorder{cfg: cfg, meta: meta, sink: &record.Sink{}}
}

// start opens the first file and makes the sink write to it. A failure is reported
// and leaves the match unrecorded.
func (r *recorder) start() {
	if r == nil {
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

// close ends the recording in progress.
func (r *recorder) close() error {
	if r == nil {
		return nil
	}
	if w := r.sink.Swap(nil); w != nil {
		return w.Close()
	}
	return nil
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

// viewTap is the Observer that records a player's own view of the match; nil
// without a recorder.
func (r *recorder) viewTap() game.Observer {
	if r == nil {
		return nil
	}
	return record.NewMatchTap(r.sink, record.TapOptions{View: true})
}

// truthTap is the Observer that records the true poses of a host's tanks (and with
// sent, their updates); shift, if set, puts the host's times on the recording's
// clock. It is nil without a recorder.
func (r *recorder) truthTap(sent bool, shift func() float64) game.Observer {
	if r == nil {
		return nil
	}
	return record.NewMatchTap(r.sink, record.TapOptions{Sent: sent, Shift: shift})
}

// hostTap is the net.Tap that records what a host accepts and sends; with a
// directory, a new file starts at each match's end. It is nil without a recorder.
func (r *recorder) hostTap() net.Tap {
	if r == nil {
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
