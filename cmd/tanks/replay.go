package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/treadline/treadline/client"
	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/replay"
	"github.com/treadline/treadline/session"
)

// recording is what the match is recorded into: -record's file, or, with the
// "Record matches" setting, a file per match in the recordings directory; and, for
// the kill camera, its last seconds in memory. Failures are told in one line and the
// match plays on.
func recording(c config, set client.Settings, stderr io.Writer) session.Recording {
	r := session.Recording{Path: c.record, Program: "tanks", Now: time.Now, Recent: client.KillCamMemory,
		Report: func(err error) { fmt.Fprintf(stderr, "tanks: %v; playing on without recording\n", err) }}
	if r.Path == "" && set.Record {
		r.Dir = client.DefaultRecordDir()
	}
	return r
}

// checkReplay refuses the replay flags without -replay, and the match flags with it.
func checkReplay(c config, set map[string]bool) error {
	if !set["replay"] {
		for _, f := range []string{"seek", "speed", "ab", "killcam"} {
			if set[f] {
				return cli.Usagef(f, "needs -replay")
			}
		}
		return nil
	}
	for _, f := range []string{"host", "join", "observe", "bots", "record", "lag", "jitter", "loss", "pass"} {
		if set[f] {
			return cli.Usagef(f, "with -replay: a replay plays a recorded match; it starts none")
		}
	}
	switch {
	case c.seek < 0:
		return cli.Usagef("seek", "%v: give 0 or more", c.seek)
	case set["speed"] && !(c.speed >= replay.MinSpeed && c.speed <= replay.MaxSpeed):
		return cli.Usagef("speed", "%v: give %g to %g", c.speed, replay.MinSpeed, replay.MaxSpeed)
	}
	if set["ab"] {
		if _, err := deadreckon.ParseAlgorithm(c.ab); err != nil {
			return cli.Usagef("ab", "%q: give pvb, static, linear, quadratic, bezier, twopath or delayed", c.ab)
		}
	}
	return nil
}

// watchReplay plays the recording c.replay in the viewer.
func watchReplay(ctx context.Context, c config, set *client.Settings, stderr io.Writer) error {
	logger := newLogger(c, stderr)
	p, stopped, err := client.LoadReplay(c.replay, c.mapDir, logger)
	if err != nil {
		return err
	}
	if stopped != "" {
		fmt.Fprintf(stderr, "tanks: %s; playing what is readable\n", stopped)
	}
	mp := p.Map()
	rc := client.ReplayConfig{Display: display(c, mp, set, logger), Seek: c.seek, Speed: c.speed}
	rc.KillCam = c.killcam
	if c.ab != "" {
		a, _ := deadreckon.ParseAlgorithm(c.ab) // checked with the flags
		rc.Alt = &a
	}
	if c.screenshot != "" {
		rc.FixedStep = time.Second / 30
	}
	return client.RunReplay(ctx, rc, p)
}
