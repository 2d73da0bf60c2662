package client

import (
	"math"
	"math/rand/v2"
)

// The game's sounds are synthesized at start, so that they ship as code rather than
// as recordings. Each is mono (OpenAL places only mono sources in space), 16-bit,
// at soundRate. Loops hold a whole number of cycles of every periodic component, so
// they repeat without a click.

// soundRate is the sample rate of every synthesized sound, samples per second.
const soundRate = 22050

// Loop lengths and base frequencies.
const (
	engineFiring = 32.0  // Hz: cylinder firings per second at idle pitch
	trackClicks  = 16.0  // Hz: track links meeting the sprockets at pitch 1
	turretWhine  = 180.0 // Hz: the turret drive's fundamental
)

// synth builds sounds from a seeded generator, so every run sounds the same.
type synth struct{ rng *rand.Rand }

func newSynth() synth { return synth{rng: rand.New(rand.NewPCG(7, 11))} }

func (s synth) noise() float64 { return 2*s.rng.Float64() - 1 }

// pcm16 scales x so that its peak is peak (of full scale) and converts it.
func pcm16(x []float64, peak float64) []int16 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	out := make([]int16, len(x))
	if m == 0 {
		return out
	}
	k := peak * 32767 / m
	for i, v := range x {
		out[i] = int16(math.Round(v * k))
	}
	return out
}

// lowpass runs a one-pole low-pass filter with cutoff fc (Hz) over x in place.
func lowpass(x []float64, fc float64) {
	a := 1 - math.Exp(-2*math.Pi*fc/soundRate)
	y := 0.0
	for i, v := range x {
		y += a * (v - y)
		x[i] = y
	}
}

// engineLoop is a diesel's idle: the firing frequency's harmonics with combustion
// pulses of filtered noise, one second long.
func (s synth) engineLoop() []int16 {
	n := soundRate
	x := make([]float64, n)
	pulse := make([]float64, n)
	for i := range pulse {
		pulse[i] = s.noise()
	}
	lowpass(pulse, 900)
	for i := range x {
		t := float64(i) / soundRate
		ph := 2 * math.Pi * engineFiring * t
		v := 0.0
		for k := 1.0; k <= 12; k++ {
			v += math.Sin(k*ph+k*k*0.7) / math.Pow(k, 0.8)
		}
		env := math.Pow(0.5+0.5*math.Sin(ph), 4)
		x[i] = 0.6*v + 1.8*env*pulse[i]
	}
	return pcm16(x, 0.8)
}

// tracksLoop is track links clattering over the sprockets: trackClicks short
// metallic ticks per second.
func (s synth) tracksLoop() []int16 {
	n := soundRate
	x := make([]float64, n)
	period := soundRate / int(trackClicks)
	for c := 0; c < int(trackClicks); c++ {
		start := c*period + int(s.rng.IntN(period/8))
		gain := 0.7 + 0.3*s.rng.Float64()
		for j := 0; j < period/2 && start+j < n; j++ {
			t := float64(j) / soundRate
			ring := math.Sin(2*math.Pi*(850+90*float64(c%3))*t) * math.Exp(-t/0.012)
			x[start+j] += gain * (0.8*s.noise()*math.Exp(-t/0.004) + ring)
		}
	}
	return pcm16(x, 0.8)
}

// turretLoop is the turret drive's electric whine with a slight wobble.
func (s synth) turretLoop() []int16 {
	n := soundRate
	x := make([]float64, n)
	for i := range x {
		t := float64(i) / soundRate
		ph := 2 * math.Pi * turretWhine * t
		v := 0.0
		for k := 1.0; k <= 8; k++ {
			v += math.Sin(k*ph) / k // a band-limited sawtooth
		}
		x[i] = v * (1 + 0.15*math.Sin(2*math.Pi*4*t))
	}
	return pcm16(x, 0.6)
}

// gunShot is a tank gun firing: a sharp blast of noise over a low thump, with a
// darkening tail.
func (s synth) gunShot() []int16 {
	n := soundRate * 6 / 5
	x := make([]float64, n)
	for i := range x {
		t := float64(i) / soundRate
		x[i] = s.noise()*math.Exp(-t/0.09) + 1.5*math.Sin(2*math.Pi*48*t)*math.Exp(-t/0.25)
	}
	lowpass(x, 2500)
	return pcm16(x, 0.95)
}

// impact is a shell striking armour: inharmonic metallic partials over a click.
func (s synth) impact() []int16 {
	n := soundRate * 2 / 5
	x := make([]float64, n)
	partials := [...]struct{ f, tau float64 }{{523, 0.12}, {1187, 0.09}, {1931, 0.07}, {2797, 0.05}}
	for i := range x {
		t := float64(i) / soundRate
		v := s.noise() * math.Exp(-t/0.003)
		for _, p := range partials {
			v += 0.5 * math.Sin(2*math.Pi*p.f*t) * math.Exp(-t/p.tau)
		}
		x[i] = v
	}
	return pcm16(x, 0.9)
}

// explosion is a tank blowing up: a low roar of noise that swells in 10 ms and dies
// over two seconds.
func (s synth) explosion() []int16 {
	n := soundRate * 5 / 2
	x := make([]float64, n)
	for i := range x {
		t := float64(i) / soundRate
		x[i] = s.noise() * math.Min(1, t/0.01) * math.Exp(-t/0.6)
	}
	lowpass(x, 400)
	lowpass(x, 600)
	return pcm16(x, 0.95)
}
