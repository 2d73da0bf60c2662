package client

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/g3n/engine/audio/al"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/render"
)

// TestSoundMix: the engine idles audibly and rises with the load, the tracks are
// silent at rest and clatter with speed, the turret motor sounds only while it turns.
func TestSoundMix(t *testing.T) {
	idleG, idleP := tankSound{}.engineMix()
	fullG, fullP := tankSound{throttle: 1, speed: soundTopSpeed}.engineMix()
	coastG, _ := tankSound{speed: soundTopSpeed / 2}.engineMix()
	if !(idleG > 0 && fullG > coastG && coastG > idleG && fullP > idleP) {
		t.Errorf("engine gain idle %v coast %v full %v, pitch idle %v full %v", idleG, coastG, fullG, idleP, fullP)
	}
	if g, _ := (tankSound{throttle: 1}).tracksMix(); g != 0 {
		t.Errorf("tracks at rest have gain %v", g)
	}
	slowG, slowP := tankSound{speed: 2}.tracksMix()
	fastG, fastP := tankSound{speed: 12}.tracksMix()
	if !(slowG > 0 && fastG >= slowG && fastP > slowP) {
		t.Errorf("tracks slow %v/%v fast %v/%v", slowG, slowP, fastG, fastP)
	}
	if g, _ := (tankSound{}).turretMix(); g != 0 {
		t.Errorf("a still turret has gain %v", g)
	}
	if g, _ := (tankSound{turretRate: -0.8}).turretMix(); g <= 0 {
		t.Error("a turning turret is silent")
	}
}

// TestSoundSynth: every synthesized sound is non-empty, loud enough, never clipped,
// and the loops are whole seconds.
func TestSoundSynth(t *testing.T) {
	s := newSynth()
	for name, pcm := range map[string][]int16{"engine": s.engineLoop(), "tracks": s.tracksLoop(),
		"turret": s.turretLoop(), "gun": s.gunShot(), "impact": s.impact(), "explosion": s.explosion()} {
		peak := 0
		for _, v := range pcm {
			peak = max(peak, int(math.Abs(float64(v))))
		}
		if len(pcm) < soundRate/4 || peak < 16000 || peak > 32767 {
			t.Errorf("%s: %d samples, peak %d", name, len(pcm), peak)
		}
	}
	if n := len(s.engineLoop()); n%soundRate != 0 {
		t.Errorf("engine loop of %d samples is not whole seconds", n)
	}
}

// TestDrivingIsLouder plays the player's tank through OpenAL Soft's wave-file backend
// (what would be heard, written to a file): idling, then driving at speed with full
// throttle. Driving must be clearly louder than idling, and idling audible.
//
// The phases are timed on the mixer's own clock, not the test's: the device starts
// writing the file when it opens, before the sounds are synthesized, and on a loaded
// machine that and the mixer's catching up in bursts put the file's time seconds away
// from the wall clock. A silent source with a click at its start (mixerClock) is the
// clock: its sample offset is how much the mixer has played since the click, and the
// click is the first sound in the file.
func TestDrivingIsLouder(t *testing.T) {
	if testing.Short() {
		t.Skip("plays sound in real time; skipped with -short")
	}
	// OpenAL Soft reads its configuration once a process: every run of the test in
	// this process (-count) writes the file the first run named.
	base := filepath.Join(os.TempDir(), fmt.Sprintf("treadline-heard-%d", os.Getpid()))
	wav, conf := base+".wav", base+".conf"
	t.Cleanup(func() { os.Remove(wav); os.Remove(conf) })
	if err := os.WriteFile(conf, []byte("[general]\ndrivers=wave\nchannels=mono\n[wave]\nfile="+wav+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ALSOFT_CONF", conf)
	s, err := OpenSound(SoundConfig{})
	if err != nil {
		t.Fatalf("OpenSound with the wave backend: %v", err)
	}
	clock := startMixerClock(t, 20*time.Second)
	view := render.View{Eye: mgl64.Vec3{-9, 3.5, 0}, Orientation: render.LookRotation(mgl64.Vec3{1, -0.3, 0}, mgl64.Vec3{0, 1, 0})}
	snap := game.Snapshot{Self: 0, Tanks: []game.TankView{{ID: 1, Name: "me", Local: true, Orientation: mgl64.QuatIdent()}}}
	const phase = 1200 * time.Millisecond
	play := func(until time.Duration, speed, throttle float64) {
		snap.Tanks[0].Velocity = mgl64.Vec3{speed, 0, 0}
		for clock.played() < until {
			s.Update(&snap, view, throttle, 0.02)
			time.Sleep(20 * time.Millisecond)
		}
	}
	play(phase, 0, 0)                   // idling
	play(2*phase, soundTopSpeed*0.8, 1) // driving
	s.Effects([]game.Effect{{Kind: game.EffectExplosion, Point: mgl64.Vec3{2, 0, 0}, Age: 0.01}}, 0.02)
	play(2*phase+500*time.Millisecond, soundTopSpeed*0.8, 1) // driving past an explosion
	if n := testing.AllocsPerRun(50, func() { s.Update(&snap, view, 1, 0.02) }); n != 0 {
		t.Errorf("Sound.Update allocates %v times per frame, want 0", n)
	}
	clock.stop()
	s.Close()

	rate, samples := readWave(t, wav)
	// The click: the first sample anything was heard at, the mixer clock's zero.
	click := slices.IndexFunc(samples, func(v float64) bool { return math.Abs(v) > clickLevel/2 })
	if click < 0 {
		t.Fatal("the mixer clock's click is not in the wave file")
	}
	t.Logf("the mixer clock started %.2f s into the wave file", float64(click)/rate)
	rms := func(from, to time.Duration) float64 {
		a, b := click+int(from.Seconds()*rate), click+int(to.Seconds()*rate)
		if b > len(samples) {
			t.Fatalf("the wave file holds %.2f s, want at least %.2f s", float64(len(samples))/rate, to.Seconds())
		}
		sum := 0.0
		for _, v := range samples[a:b] {
			sum += v * v
		}
		return math.Sqrt(sum / float64(b-a))
	}
	// Windows well inside each phase, away from the switch.
	idle := rms(300*time.Millisecond, phase-200*time.Millisecond)
	drive := rms(phase+400*time.Millisecond, 2*phase-200*time.Millisecond)
	// The loudest 100 ms after the explosion began, wherever the mixer put it (a loaded
	// machine shifts the file's time against the wall clock).
	boom := 0.0
	end := time.Duration(float64(len(samples)-click) / rate * float64(time.Second))
	for at := 2*phase - 100*time.Millisecond; at+100*time.Millisecond <= end; at += 20 * time.Millisecond {
		boom = math.Max(boom, rms(at, at+100*time.Millisecond))
	}
	t.Logf("heard RMS: idling %.4f, driving %.4f (×%.2f), loudest 100 ms with an explosion %.4f", idle, drive, drive/idle, boom)
	if boom < 1.3*drive {
		t.Errorf("an explosion beside the tank (RMS %.4f at its loudest) is not louder than driving (RMS %.4f)", boom, drive)
	}
	if idle < 0.005 {
		t.Errorf("idling is inaudible: RMS %.4f of full scale", idle)
	}
	if drive < 1.5*idle {
		t.Errorf("driving (RMS %.4f) is not clearly louder than idling (RMS %.4f)", drive, idle)
	}
}

// clickLevel is the height of the mixer clock's click, of full scale.
const clickLevel = 0.9

// mixerClock is a source playing silence after one click, at the listener: its
// sample offset is the time the mixer has played since the click.
type mixerClock struct {
	src, buf uint32
	samples  int // the clock's length
}

// startMixerClock starts a mixer clock that runs for length.
func startMixerClock(t *testing.T, length time.Duration) *mixerClock {
	t.Helper()
	pcm := make([]int16, int(length.Seconds()*soundRate))
	for i := range 8 {
		pcm[i] = int16(math.Round(clickLevel * 32767))
	}
	c := &mixerClock{buf: al.GenBuffers(1)[0], src: al.GenSource(), samples: len(pcm)}
	al.BufferData(c.buf, al.FormatMono16, unsafe.Pointer(&pcm[0]), uint32(2*len(pcm)), soundRate)
	runtime.KeepAlive(pcm)
	al.Sourcei(c.src, al.Buffer, int32(c.buf))
	al.Sourcei(c.src, al.SourceRelative, al.True)
	al.Source3f(c.src, al.Position, 0, 0, 0)
	al.SourcePlay(c.src)
	if err := al.GetError(); err != nil {
		t.Fatalf("the mixer clock: %v", err)
	}
	return c
}

// played returns the time the mixer has played since the click; the clock's whole
// length once it ran out.
func (c *mixerClock) played() time.Duration {
	if al.GetSourcei(c.src, al.SourceState) == al.Stopped {
		return time.Duration(float64(c.samples) / soundRate * float64(time.Second))
	}
	return time.Duration(float64(al.GetSourcei(c.src, al.SampleOffset)) / soundRate * float64(time.Second))
}

// stop stops the clock and frees its source.
func (c *mixerClock) stop() {
	al.SourceStop(c.src)
	al.DeleteSource(c.src)
	al.DeleteBuffers([]uint32{c.buf})
}

// readWave reads a RIFF WAVE file of 16-bit integer or 32-bit float samples and
// returns its rate and its first channel, in full-scale units.
func readWave(t *testing.T, path string) (rate float64, samples []float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		t.Fatalf("%s is not a WAVE file", path)
	}
	var format, channels, bits int
	le := binary.LittleEndian
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(le.Uint32(b[p+4:]))
		body := b[p+8:]
		if size > len(body) || id == "data" && size == 0 {
			size = len(body) // a file whose writer did not finish its header
		}
		body = body[:size]
		switch id {
		case "fmt ":
			format, channels = int(le.Uint16(body)), int(le.Uint16(body[2:]))
			rate, bits = float64(le.Uint32(body[4:])), int(le.Uint16(body[14:]))
			if format == 0xFFFE && len(body) >= 26 { // WAVE_FORMAT_EXTENSIBLE: the sub-format
				format = int(le.Uint16(body[24:]))
			}
		case "data":
			step := channels * bits / 8
			if step == 0 {
				t.Fatal("data before fmt")
			}
			for i := 0; i+step <= len(body); i += step {
				switch {
				case format == 1 && bits == 16:
					samples = append(samples, float64(int16(le.Uint16(body[i:])))/32768)
				case format == 3 && bits == 32:
					samples = append(samples, float64(math.Float32frombits(le.Uint32(body[i:]))))
				default:
					t.Fatal(errors.New("unsupported wave format"))
				}
			}
			return rate, samples
		}
		p += 8 + size + size%2
	}
	t.Fatalf("%s has no data", path)
	return 0, nil
}

// TestCombatSounds: every combat effect has its one-shot.
func TestCombatSounds(t *testing.T) {
	for k, want := range map[game.EffectKind]SoundEvent{game.EffectMuzzle: SoundGun, game.EffectHit: SoundImpact,
		game.EffectDust: SoundImpact, game.EffectExplosion: SoundExplosion} {
		if got, ok := soundOf(k); !ok || got != want {
			t.Errorf("effect %v: sound %v %v, want %v", k, got, ok, want)
		}
	}
	if _, ok := soundOf(0); ok {
		t.Error("an unknown effect has a sound")
	}
}

// TestNearestTanksMatchesSort: the voices go to the same tanks, in the same order,
// as a stable sort of every tank by distance cut to soundVoices gives, ties to the
// earlier tank.
func TestNearestTanksMatchesSort(t *testing.T) {
	spread := func(n int, seed float64) []game.TankView {
		tanks := make([]game.TankView, n)
		for i := range tanks {
			x := seed * float64(i)
			tanks[i].Position = mgl64.Vec3{300 * math.Sin(x), 3 * math.Cos(2*x), 300 * math.Cos(1.7*x)}
		}
		return tanks
	}
	ring := make([]game.TankView, 20) // every tank as far from the eye: ties decide
	for i := range ring {
		a := float64(i%4) * math.Pi / 2
		ring[i].Position = mgl64.Vec3{50 * math.Cos(a), 0, 50 * math.Sin(a)}
	}
	dup := spread(30, 0.7)
	for i := 10; i < 30; i++ {
		dup[i].Position = dup[i-10].Position // pairs at the same spot
	}
	for _, c := range []struct {
		name  string
		tanks []game.TankView
		eye   mgl64.Vec3
	}{
		{"none", nil, mgl64.Vec3{}},
		{"fewer than the voices", spread(5, 1.3), mgl64.Vec3{1, 2, 3}},
		{"as many as the voices", spread(soundVoices, 0.9), mgl64.Vec3{}},
		{"64 tanks", spread(64, 0.37), mgl64.Vec3{10, 5, -20}},
		{"512 tanks", spread(512, 0.011), mgl64.Vec3{-40, 8, 60}},
		{"ties on a ring", ring, mgl64.Vec3{}},
		{"tanks in pairs", dup, mgl64.Vec3{5, 0, 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := make([]int, len(c.tanks))
			for i := range want {
				want[i] = i
			}
			dist := func(i int) float64 { return c.tanks[i].Position.Sub(c.eye).Len() }
			slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(dist(a), dist(b)) })
			want = want[:min(len(want), soundVoices)]
			got := nearestTanks(make([]int, 0, soundVoices), c.tanks, c.eye, soundVoices)
			if !slices.Equal(got, want) {
				t.Errorf("nearest %v, want %v", got, want)
			}
		})
	}
}
