package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/wire"
)

// Tolerances of what a recording keeps.
const (
	posTol   = 0.0005 + 1e-9 // half a millimetre
	angleTol = truthAngleStep/2 + 1e-9
	quatTol  = 1.0 / truthQuatScale
	timeTol  = 0.5e-6 + 1e-12
)

// tankState is a moving tank's state at time t, for updates.
func tankState(t float64) deadreckon.State {
	s := deadreckon.NewState(mgl64.Vec3{10 * math.Cos(t/3), 2, 10 * math.Sin(t/3)})
	s.Time = t
	s.Velocity = mgl64.Vec3{-10.0 / 3 * math.Sin(t/3), 0, 10.0 / 3 * math.Cos(t/3)}
	s.Orientation = geom.YawQuat(t / 3)
	s.NumArticulations = 2
	s.Articulations[0].Angle = 0.5
	return s
}

// truePose is a tank's true pose at time t.
func truePose(actor uint32, t float64) Pose {
	return Pose{Actor: actor, Time: t, Position: mgl64.Vec3{40 * math.Cos(t/4), 3 + 0.2*math.Sin(t), 40 * math.Sin(t/4)},
		Orientation: geom.YawQuat(t/4 + math.Pi/2), Turret: math.Remainder(2*t, 2*math.Pi), Gun: 0.05}
}

// sample is what writeSample records, to check the reading against.
type sample struct {
	msgs   []wire.Message
	truths []Pose
	frames int
}

// writeSample writes a few seconds of every record kind to w.
func writeSample(t *testing.T, w *Writer) sample {
	t.Helper()
	var s sample
	spawn := &wire.Spawn{Actor: 3, Owner: 2, Team: 1, Name: "ann", State: tankState(0)}
	if err := w.Message(0, spawn); err != nil {
		t.Fatal(err)
	}
	s.msgs = append(s.msgs, spawn)
	if err := w.Join(0, 2, "ann"); err != nil {
		t.Fatal(err)
	}
	for i := range 240 {
		now := float64(i) / 60
		w.Frame(now, 0.25)
		s.frames++
		p := truePose(7, now)
		w.Truth(p)
		s.truths = append(s.truths, p)
		if i%10 == 0 {
			u := wire.Update{Actor: 3, Seq: uint16(i + 1), State: tankState(now)}
			if err := w.Update(now, now-0.1, &u); err != nil {
				t.Fatal(err)
			}
			if err := w.Sent(now, &u); err != nil {
				t.Fatal(err)
			}
			if err := w.SentMark(now, 4); err != nil {
				t.Fatal(err)
			}
		}
	}
	chat := &wire.Chat{From: 2, Text: "gg"}
	if err := w.Message(4, chat); err != nil {
		t.Fatal(err)
	}
	s.msgs = append(s.msgs, chat)
	return s
}

// readAll reads every record of a recording.
func readAll(t *testing.T, b []byte) ([]Record, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	var out []Record
	var rec Record
	for r.Next(&rec) {
		out = append(out, rec)
	}
	return out, r.Err()
}

func recordSample(t *testing.T, cfg Config) ([]byte, sample) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Meta{Perspective: Client, Map: "valley", Recorder: "ann", Player: 2}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := writeSample(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), s
}

func TestRoundTrip(t *testing.T) {
	b, want := recordSample(t, Config{})
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Meta(); m.Map != "valley" || m.Recorder != "ann" || m.Protocol != wire.Version || m.Format != FormatVersion {
		t.Errorf("meta = %+v", m)
	}
	recs, err := readAll(t, b)
	if err != nil {
		t.Fatal(err)
	}
	var msgs, truths, frames, states, sent, marks, joins int
	for _, rec := range recs {
		switch rec.Kind {
		case KindMessage:
			got, _ := rec.Message.Append(nil)
			exp, _ := want.msgs[msgs].Append(nil)
			if !bytes.Equal(got, exp) {
				t.Errorf("message %d = %x, want %x", msgs, got, exp)
			}
			msgs++
		case KindTruth, KindTruthKey:
			p := want.truths[truths]
			if d := rec.Truth.Position.Sub(p.Position); math.Abs(d[0]) > posTol || math.Abs(d[1]) > posTol || math.Abs(d[2]) > posTol {
				t.Errorf("truth %d at %v, want %v", truths, rec.Truth.Position, p.Position)
			}
			if a := geom.QuatAngle(rec.Truth.Orientation, p.Orientation); a > 4*quatTol {
				t.Errorf("truth %d orientation %v off by %v rad", truths, rec.Truth.Orientation, a)
			}
			if d := math.Abs(math.Remainder(rec.Truth.Turret-p.Turret, 2*math.Pi)); d > angleTol {
				t.Errorf("truth %d turret %v, want %v", truths, rec.Truth.Turret, p.Turret)
			}
			if math.Abs(rec.Time-p.Time) > timeTol || rec.Truth.Actor != 7 {
				t.Errorf("truth %d of actor %d at %v, want actor 7 at %v", truths, rec.Truth.Actor, rec.Time, p.Time)
			}
			truths++
		case KindFrame:
			if math.Abs(rec.ClockOffset-0.25) > timeTol {
				t.Errorf("frame offset %v, want 0.25", rec.ClockOffset)
			}
			frames++
		case KindState:
			if math.Abs(rec.Time-rec.Arrival-0.1) > 2*timeTol || rec.Update.Actor != 3 {
				t.Errorf("state of actor %d at %v arrived %v, want 0.1 s before", rec.Update.Actor, rec.Time, rec.Arrival)
			}
			if d := rec.Update.State.Position.Sub(tankState(rec.Time).Position).Len(); d > 0.001 {
				t.Errorf("state at %v is %v m off", rec.Time, d)
			}
			states++
		case KindSent:
			sent++
		case KindSentMark:
			if rec.Actor != 4 {
				t.Errorf("sent mark of actor %d, want 4", rec.Actor)
			}
			marks++
		case KindJoin:
			if rec.Player != 2 || rec.Name != "ann" {
				t.Errorf("join = %d %q", rec.Player, rec.Name)
			}
			joins++
		}
	}
	if msgs != len(want.msgs) || truths != len(want.truths) || frames != want.frames || states != 24 || sent != 24 || marks != 24 || joins != 1 {
		t.Errorf("read %d messages, %d truths, %d frames, %d states, %d sent, %d marks, %d joins; want %d, %d, %d, 24, 24, 24, 1",
			msgs, truths, frames, states, sent, marks, joins, len(want.msgs), len(want.truths), want.frames)
	}
}

// TestBlocksEverySecond checks that a block is sealed per second of recording time,
// so that a killed process loses at most a second.
// The writer's goroutine runs in a synctest bubble: once every goroutine of the bubble
// waits, the sealed blocks are written, with no polling.
func TestBlocksEverySecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, Meta{}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for i := range 301 { // 5 s at 60 Hz
			w.Frame(float64(i)/60, 0)
		}
		w.Flush()
		synctest.Wait()
		// What the disk has is exactly what a killed process would leave.
		if blocks := w.Stats().Blocks; blocks != 6 {
			t.Fatalf("%d blocks written, want 6", blocks)
		}
		killed := bytes.Clone(buf.Bytes())
		recs, err := readAll(t, killed)
		if err != nil || len(recs) != 301 {
			t.Errorf("a killed writer's file reads %d records (err %v), want 301", len(recs), err)
		}
	})
}

func TestTruncatedReadsWhatIsThere(t *testing.T) {
	b, _ := recordSample(t, Config{})
	full, err := readAll(t, b)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewReader(bytes.NewReader(b))
	hdrEnd := r.Offset()
	for cut := int(hdrEnd); cut < len(b); cut += 7 {
		recs, err := readAll(t, b[:cut])
		if len(recs) > len(full) {
			t.Fatalf("cut at %d: %d records from %d", cut, len(recs), len(full))
		}
		var se *StopError
		switch {
		case err == nil:
			// A cut between blocks is a clean end.
		case !errors.As(err, &se):
			t.Fatalf("cut at %d: error %v is not a StopError", cut, err)
		case strings.Contains(err.Error(), "\n"):
			t.Fatalf("cut at %d: error is not one line: %q", cut, err)
		case !errors.Is(err, io.ErrUnexpectedEOF):
			t.Fatalf("cut at %d: %v, want a truncation", cut, err)
		case se.Offset > int64(cut):
			t.Fatalf("cut at %d: stopped at byte %d", cut, se.Offset)
		}
	}
	for cut := range int(hdrEnd) {
		if _, err := NewReader(bytes.NewReader(b[:cut])); err == nil {
			t.Fatalf("header cut at %d read", cut)
		}
	}
}

func TestDamagedStops(t *testing.T) {
	b, _ := recordSample(t, Config{FlushEvery: 0.5})
	full, _ := readAll(t, b)
	r, _ := NewReader(bytes.NewReader(b))
	hdrEnd := int(r.Offset())
	for _, at := range []int{hdrEnd, hdrEnd + 5, hdrEnd + blockHeaderSize + 3, len(b) / 2, len(b) - 2} {
		bad := bytes.Clone(b)
		bad[at] ^= 0x40
		recs, err := readAll(t, bad)
		var se *StopError
		if !errors.As(err, &se) || !errors.Is(err, ErrDamaged) {
			t.Errorf("byte %d flipped: err %v, want a StopError for damage", at, err)
			continue
		}
		if len(recs) >= len(full) || se.Offset > int64(at) {
			t.Errorf("byte %d flipped: read %d of %d records, stopped at %d", at, len(recs), len(full), se.Offset)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "recording stopped at byte") {
			t.Errorf("byte %d flipped: message %q", at, msg)
		}
	}
}

func TestVersionRefused(t *testing.T) {
	b, _ := recordSample(t, Config{})
	for _, c := range []struct {
		at   int
		v    byte
		want []string
	}{
		{len(Magic), FormatVersion + 1, []string{"format version 2", "version 1"}},
		{len(Magic) + 1, wire.Version + 1, []string{fmt.Sprintf("protocol version %d", wire.Version+1), fmt.Sprintf("version %d", wire.Version)}},
	} {
		bad := bytes.Clone(b)
		bad[c.at] = c.v
		_, err := NewReader(bytes.NewReader(bad))
		var ve *VersionError
		if !errors.As(err, &ve) || !errors.Is(err, ErrVersion) {
			t.Fatalf("version byte %d = %d: err %v", c.at, c.v, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q does not name %q", err, w)
			}
		}
	}
	if _, err := NewReader(strings.NewReader("not a recording at all")); !errors.Is(err, ErrNotRecording) {
		t.Errorf("junk: %v", err)
	}
}

// TestNoSecrets checks that the handshake's messages, which carry the join proof and
// the reconnect token, are refused.
func TestNoSecrets(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Meta{}, Config{})
	defer w.Close()
	for _, m := range []wire.Message{
		&wire.JoinRequest{Name: "ann", Proof: [wire.ProofSize]byte{1}, Token: [wire.TokenSize]byte{2}},
		&wire.JoinAccepted{Player: 1, Token: [wire.TokenSize]byte{3}, TickRate: 60, Heartbeat: 1, MapExtent: 256, MapName: "valley"},
		&wire.Challenge{}, &wire.Kick{Reason: "x"}, &wire.ClockRequest{ClientSend: 1}, nil,
	} {
		if err := w.Message(1, m); err == nil {
			t.Errorf("%v recorded", typeOf(m))
		}
	}
	if s := w.Stats(); s.Records != 0 {
		t.Errorf("%d records written", s.Records)
	}
}

// failing is an io.Writer whose writes fail from the nth on.
type failing struct {
	mu  sync.Mutex
	n   int
	err error
}

func (f *failing) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n <= 0 {
		return 0, f.err
	}
	f.n--
	return len(b), nil
}

// TestWriteFailureReportedOnce checks that a full disk is reported once, in one
// line, and that recording then costs the caller nothing and never fails it.
func TestWriteFailureReportedOnce(t *testing.T) {
	out := &failing{n: 2, err: errors.New("no space left on device")}
	var (
		mu      sync.Mutex
		reports []error
	)
	w, err := NewWriter(out, Meta{}, Config{Name: "match.tread", OnError: func(err error) {
		mu.Lock()
		reports = append(reports, err)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 600 { // 10 s: the second block fails
		now := float64(i) / 60
		w.Frame(now, 0)
		w.Truth(truePose(1, now))
	}
	err = w.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 1 {
		t.Fatalf("%d reports, want 1: %v", len(reports), reports)
	}
	msg := reports[0].Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "match.tread") || !strings.Contains(msg, "no space left") {
		t.Errorf("report %q: want one line naming the file and the cause", msg)
	}
	if err == nil || err.Error() != msg {
		t.Errorf("Close = %v, want the same error", err)
	}
	if s := w.Stats(); s.Blocks != 1 || s.Dropped == 0 {
		t.Errorf("stats %+v: want 1 block written and the rest dropped", s)
	}
	if _, err := NewWriter(&failing{err: errors.New("read-only file system")}, Meta{}, Config{}); err == nil {
		t.Error("a header that cannot be written is not reported")
	}
}

// blocking is an io.Writer that waits until released: a disk that has stalled.
type blocking struct {
	release chan struct{}
	buf     bytes.Buffer
	first   bool
}

func (b *blocking) Write(p []byte) (int, error) {
	if b.first {
		<-b.release
	}
	b.first = true
	return b.buf.Write(p)
}

// TestStalledDiskNeverBlocks checks that a disk that stops answering costs blocks,
// counted, and never the caller's time.
func TestStalledDiskNeverBlocks(t *testing.T) {
	out := &blocking{release: make(chan struct{})}
	w, err := NewWriter(out, Meta{}, Config{Queue: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1200 { // 20 s, with 3 blocks' room at most
		w.Frame(float64(i)/60, 0)
	}
	if s := w.Stats(); s.Dropped == 0 {
		t.Errorf("stats %+v: a stalled disk dropped nothing", s)
	}
	close(out.release)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := readAll(t, out.buf.Bytes())
	if err != nil || len(recs) == 0 || len(recs) >= 1200 {
		t.Errorf("read %d records (err %v), want some of 1200", len(recs), err)
	}
}

func TestCreateUnwritable(t *testing.T) {
	_, err := Create(t.TempDir()+"/no/such/dir/match.tread", Meta{}, Config{})
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "match.tread") {
		t.Errorf("Create in a missing directory: %v", err)
	}
}

func TestClock(t *testing.T) {
	for _, c := range []struct {
		t    float64
		want string
	}{{0, "0:00"}, {59.9, "0:59"}, {61, "1:01"}, {3725, "1:02:05"}, {math.NaN(), "0:00"}, {-3, "0:00"}} {
		if got := Clock(c.t); got != c.want {
			t.Errorf("Clock(%v) = %q, want %q", c.t, got, c.want)
		}
	}
}

// TestReadsOlderProtocol reads the shipped recording, written with protocol
// MinProtocol (its header and every message's header say so), to its end.
func TestReadsOlderProtocol(t *testing.T) {
	r, err := Open("../assets/recordings/practice-7-bots.tread")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if p := r.Meta().Protocol; p != MinProtocol {
		t.Skipf("the shipped recording speaks protocol %d, not MinProtocol %d", p, MinProtocol)
	}
	var rec Record
	messages, scores := 0, 0
	for r.Next(&rec) {
		if rec.Kind == KindMessage {
			messages++
			if _, ok := rec.Message.(*wire.Scores); ok {
				scores++
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatalf("after %d messages: %v", messages, err)
	}
	if scores == 0 {
		t.Errorf("%d messages, no scores among them", messages)
	}
}
