package client

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"unsafe"

	"github.com/g3n/engine/audio/al"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/render"
)

// SoundConfig sets up the game's sound. The zero value plays at full volume.
type SoundConfig struct {
	// Mute opens no audio device at all.
	Mute bool
	// Volume is the master volume, 0..1. If zero, defaults to 1; Silent (or any
	// negative volume) plays nothing.
	Volume float64
}

// Silent is the SoundConfig.Volume that plays nothing, the device still open.
const Silent = -1

// SoundEvent is a one-shot sound that combat triggers at a place.
type SoundEvent uint8

// One-shot sounds.
const (
	// SoundGun is a tank gun firing.
	SoundGun SoundEvent = iota
	// SoundImpact is a shell striking a tank or the ground.
	SoundImpact
	// SoundExplosion is a tank destroyed.
	SoundExplosion
	numSoundEvents
)

// Sound limits and the spatial model.
const (
	// soundVoices is how many of the nearest tanks are heard at once: each takes an
	// engine, a tracks and a turret source.
	soundVoices = 12
	// soundOneShots is how many one-shot sounds play at once; the oldest is cut.
	soundOneShots = 8
	// soundReference is the distance at which a source plays at its own gain, m;
	// beyond it the gain falls as reference/distance (OpenAL's inverse model).
	soundReference = 8.0
	// soundMaxDistance is where the fall-off stops, m.
	soundMaxDistance = 400.0
	// soundTopSpeed is the speed at which the engine and tracks sound their
	// hardest, m/s (tank.DefaultTopSpeed).
	soundTopSpeed = 15.0
	// soundTurretTop is the turret rate at which its motor sounds its hardest, rad/s.
	soundTurretTop = 1.2
)

// tankSound is what a tank's running sounds follow: its throttle (the player's own
// input for the player's tank, otherwise inferred from the displayed acceleration),
// its speed and its turret's rate.
type tankSound struct {
	throttle   float64 // -1..1
	speed      float64 // m/s
	turretRate float64 // rad/s
}

// engineMix returns the engine's gain and pitch: an idle rumble at rest rising in
// loudness and pitch with the load, the larger of throttle and speed.
func (t tankSound) engineMix() (gain, pitch float64) {
	load := math.Min(1, math.Max(math.Abs(t.throttle), math.Abs(t.speed)/soundTopSpeed))
	return 0.2 + 0.45*load, 0.75 + 0.85*load // below the one-shots, so that combat cuts through
}

// tracksMix returns the tracks' gain and pitch: silent at rest, clattering faster
// with speed.
func (t tankSound) tracksMix() (gain, pitch float64) {
	v := math.Min(1, math.Abs(t.speed)/soundTopSpeed)
	return math.Min(0.6, 1.5*v), 0.4 + 1.6*v
}

// turretMix returns the turret motor's gain and pitch: silent unless it turns.
func (t tankSound) turretMix() (gain, pitch float64) {
	r := math.Min(1, math.Abs(t.turretRate)/soundTurretTop)
	if r < 0.02 {
		return 0, 1
	}
	return 0.6 * r, 0.8 + 0.4*r
}

// Sound plays the match: positional running sounds for the nearest tanks and
// one-shots for combat, through OpenAL (g3n's audio bindings). A nil *Sound is
// silent, so callers need not check whether sound could start. Its methods must be
// called from one goroutine.
type Sound struct {
	dev     *al.Device
	ctx     *al.Context
	buffers []uint32 // engine, tracks, turret, then one per SoundEvent
	voices  [soundVoices]voice
	shots   [soundOneShots]uint32
	next    int // next one-shot source to use
	turret  map[uint32]float64
	order   []int
	orient  []float32 // the listener's forward and up, reused each frame
}

// voice is the three looping sources of one heard tank.
type voice struct {
	tank                   uint32 // 0: free
	engine, tracks, turret uint32
	seen                   bool
}

const (
	bufEngine = iota
	bufTracks
	bufTurret
	bufFirstShot
)

// ErrNoAudioDevice reports that this machine has no audio output to play to.
var ErrNoAudioDevice = errors.New("no audio output device")

// OpenSound opens the default audio device and makes the game's sounds. It returns
// nil and no error when cfg.Mute is set, and nil and an error saying why when there
// is no device (the game then plays silently).
func OpenSound(cfg SoundConfig) (*Sound, error) {
	if cfg.Mute {
		return nil, nil
	}
	if err := audioOutputPresent(); err != nil {
		return nil, err
	}
	dev, err := al.OpenDevice("")
	if err != nil {
		return nil, fmt.Errorf("%w: OpenAL could not open the default device (%v)", ErrNoAudioDevice, err)
	}
	ctx, err := al.CreateContext(dev, nil)
	if err != nil {
		al.CloseDevice(dev)
		return nil, fmt.Errorf("sound: OpenAL context: %w", err)
	}
	if err := al.MakeContextCurrent(ctx); err != nil {
		al.DestroyContext(ctx)
		al.CloseDevice(dev)
		return nil, fmt.Errorf("sound: OpenAL context: %w", err)
	}
	s := &Sound{dev: dev, ctx: ctx, turret: map[uint32]float64{}}
	syn := newSynth()
	data := [...][]int16{bufEngine: syn.engineLoop(), bufTracks: syn.tracksLoop(), bufTurret: syn.turretLoop(),
		bufFirstShot + int(SoundGun): syn.gunShot(), bufFirstShot + int(SoundImpact): syn.impact(),
		bufFirstShot + int(SoundExplosion): syn.explosion()}
	s.buffers = al.GenBuffers(uint32(len(data)))
	for i, pcm := range data {
		al.BufferData(s.buffers[i], al.FormatMono16, unsafe.Pointer(&pcm[0]), uint32(2*len(pcm)), soundRate)
		runtime.KeepAlive(pcm)
	}
	for i := range s.voices {
		v := &s.voices[i]
		v.engine, v.tracks, v.turret = s.source(bufEngine, true), s.source(bufTracks, true), s.source(bufTurret, true)
	}
	for i := range s.shots {
		s.shots[i] = s.source(-1, false)
	}
	vol := cfg.Volume
	if vol == 0 {
		vol = 1
	}
	al.Listenerf(al.Gain, float32(math.Max(0, math.Min(1, vol))))
	if err := al.GetError(); err != nil {
		s.Close()
		return nil, fmt.Errorf("sound: OpenAL: %w", err)
	}
	return s, nil
}

// source makes a source playing buffer buf (none when negative), looping or not,
// silent until placed.
func (s *Sound) source(buf int, loop bool) uint32 {
	src := al.GenSource()
	if buf >= 0 {
		al.Sourcei(src, al.Buffer, int32(s.buffers[buf]))
	}
	if loop {
		al.Sourcei(src, al.Looping, al.True)
	}
	al.Sourcef(src, al.ReferenceDistance, soundReference)
	al.Sourcef(src, al.MaxDistance, soundMaxDistance)
	al.Sourcef(src, al.Gain, 0)
	return src
}

// SetVolume sets the master volume, 0..1.
func (s *Sound) SetVolume(v float64) {
	if s == nil {
		return
	}
	al.Listenerf(al.Gain, float32(math.Max(0, math.Min(1, v))))
}

// Update places the listener at view and the running sounds of the nearest tanks of
// snap; throttle is the player's own input, for the player's tank. dt is the frame
// time, s.
func (s *Sound) Update(snap *game.Snapshot, view render.View, throttle, dt float64) {
	if s == nil {
		return
	}
	eye, fwd := view.Eye, view.Forward()
	up := view.Orientation.Rotate(mgl64.Vec3{0, 1, 0})
	al.Listener3f(al.Position, float32(eye[0]), float32(eye[1]), float32(eye[2]))
	s.orient = append(s.orient[:0], float32(fwd[0]), float32(fwd[1]), float32(fwd[2]),
		float32(up[0]), float32(up[1]), float32(up[2]))
	al.Listenerfv(al.Orientation, s.orient)

	// The nearest tanks get the voices.
	s.order = nearestTanks(s.order[:0], snap.Tanks, eye, soundVoices)
	for i := range s.voices {
		s.voices[i].seen = false
	}
	for _, ti := range s.order {
		tv := &snap.Tanks[ti]
		st := tankSound{speed: tv.Velocity.Len()}
		if ti == snap.Self {
			st.throttle = throttle
		} else {
			fwd := tv.Orientation.Rotate(mgl64.Vec3{1, 0, 0})
			st.throttle = math.Max(-1, math.Min(1, tv.Acceleration.Dot(fwd)/3))
		}
		if last, ok := s.turret[tv.ID]; ok && dt > 0 {
			st.turretRate = math.Remainder(tv.Turret-last, 2*math.Pi) / dt
		}
		s.turret[tv.ID] = tv.Turret
		v := s.voiceFor(tv.ID)
		v.seen = true
		for _, src := range [...]uint32{v.engine, v.tracks, v.turret} {
			al.Source3f(src, al.Position, float32(tv.Position[0]), float32(tv.Position[1]+1), float32(tv.Position[2]))
		}
		g, p := st.engineMix()
		setVoice(v.engine, g, p)
		g, p = st.tracksMix()
		setVoice(v.tracks, g, p)
		g, p = st.turretMix()
		setVoice(v.turret, g, p)
	}
	for i := range s.voices {
		v := &s.voices[i]
		if !v.seen && v.tank != 0 {
			for _, src := range [...]uint32{v.engine, v.tracks, v.turret} {
				al.SourceStop(src)
			}
			delete(s.turret, v.tank)
			v.tank = 0
		}
	}
}

// voiceFor returns the voice playing tank id, taking a free one if it has none.
func (s *Sound) voiceFor(id uint32) *voice {
	var free *voice
	for i := range s.voices {
		v := &s.voices[i]
		if v.tank == id {
			return v
		}
		if v.tank == 0 && free == nil {
			free = v
		}
	}
	// soundVoices tanks at most are placed per frame and unseen voices are freed at
	// the end of the previous one, so a free voice exists.
	free.tank = id
	for _, src := range [...]uint32{free.engine, free.tracks, free.turret} {
		al.Sourcef(src, al.Gain, 0)
		al.SourcePlay(src)
	}
	return free
}

func setVoice(src uint32, gain, pitch float64) {
	al.Sourcef(src, al.Gain, float32(gain))
	al.Sourcef(src, al.Pitch, float32(pitch))
}

// Play starts the one-shot ev at position at (world frame, m). Combat calls it for
// shots, hits and destroyed tanks.
func (s *Sound) Play(ev SoundEvent, at mgl64.Vec3) {
	if s == nil || ev >= numSoundEvents {
		return
	}
	src := s.shots[s.next]
	s.next = (s.next + 1) % len(s.shots)
	al.SourceStop(src)
	al.Sourcei(src, al.Buffer, int32(s.buffers[bufFirstShot+int(ev)]))
	al.Source3f(src, al.Position, float32(at[0]), float32(at[1]), float32(at[2]))
	al.Sourcef(src, al.Gain, 1)
	al.SourcePlay(src)
}

// Close stops every sound and closes the device.
func (s *Sound) Close() {
	if s == nil {
		return
	}
	for i := range s.voices {
		v := &s.voices[i]
		for _, src := range [...]uint32{v.engine, v.tracks, v.turret} {
			al.SourceStop(src)
			al.DeleteSource(src)
		}
	}
	for _, src := range s.shots {
		al.SourceStop(src)
		al.DeleteSource(src)
	}
	al.DeleteBuffers(s.buffers)
	al.DestroyContext(s.ctx)
	al.CloseDevice(s.dev)
}

// audioOutputPresent reports, on Linux, an error when the machine plainly has no
// audio output (no sound card device and no PulseAudio or PipeWire server), so that
// the game says so in one line instead of letting the audio libraries print their
// own complaints. Elsewhere, and when OpenAL Soft is configured explicitly
// (ALSOFT_CONF, ALSOFT_DRIVERS), it lets OpenAL decide.
func audioOutputPresent() error {
	if runtime.GOOS != "linux" || os.Getenv("ALSOFT_CONF") != "" || os.Getenv("ALSOFT_DRIVERS") != "" {
		return nil
	}
	if pcm, _ := filepath.Glob("/dev/snd/pcmC*p"); len(pcm) > 0 {
		return nil
	}
	if os.Getenv("PULSE_SERVER") != "" {
		return nil
	}
	if run := os.Getenv("XDG_RUNTIME_DIR"); run != "" {
		for _, sock := range []string{"pulse/native", "pipewire-0"} {
			if _, err := os.Stat(filepath.Join(run, sock)); err == nil {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: no sound card (/dev/snd) and no PulseAudio or PipeWire server", ErrNoAudioDevice)
}

// soundOf maps a combat effect to its one-shot sound.
func soundOf(k game.EffectKind) (SoundEvent, bool) {
	switch k {
	case game.EffectMuzzle:
		return SoundGun, true
	case game.EffectHit, game.EffectDust:
		return SoundImpact, true
	case game.EffectExplosion:
		return SoundExplosion, true
	}
	return 0, false
}

// Effects plays the one-shots of the combat effects that began within the last
// frame (younger than dt seconds): gun shots, impacts and explosions, where they
// happened.
func (s *Sound) Effects(effects []game.Effect, dt float64) {
	if s == nil {
		return
	}
	for i := range effects {
		e := &effects[i]
		if ev, ok := soundOf(e.Kind); ok && e.Age >= 0 && e.Age < dt {
			s.Play(ev, e.Point)
		}
	}
}

// nearestTanks appends to dst the indices of the n tanks nearest eye, nearest first,
// ties in the order of tanks, and returns it. It keeps the n nearest seen so far in
// order by insertion and compares squared distances: a full sort by distance with a
// square root for every comparison costs far more at hundreds of tanks, to keep a
// dozen. A square root is monotone, so the choice is the same as by distance.
func nearestTanks(dst []int, tanks []game.TankView, eye mgl64.Vec3, n int) []int {
	start := len(dst)
	var d2 [soundVoices]float64 // the kept tanks' squared distances, in dst's order
	if n > len(d2) {
		n = len(d2)
	}
	for i := range tanks {
		d := tanks[i].Position.Sub(eye)
		di := d.Dot(d)
		k := len(dst) - start
		if k == n && (n == 0 || di >= d2[k-1]) {
			continue // no nearer than the farthest kept: a tie goes to the earlier tank
		}
		if k < n {
			dst = append(dst, 0)
			k++
		}
		j := k - 1
		for j > 0 && d2[j-1] > di {
			d2[j], dst[start+j] = d2[j-1], dst[start+j-1]
			j--
		}
		d2[j], dst[start+j] = di, i
	}
	return dst
}
