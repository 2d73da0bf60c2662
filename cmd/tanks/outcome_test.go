package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/treadline/treadline/client"
	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net"
)

// TestOutcome: a match the host ended normally, or the player left, exits 0; a lost
// one exits 1 with a sentence, keeping the chain for errors.Is.
func TestOutcome(t *testing.T) {
	const host = "203.0.113.5:7777"
	chain := func(e net.Ending, why string) error {
		return fmt.Errorf("match: %w", &game.EndedError{Ending: e, Reason: why})
	}
	for _, c := range []struct {
		err    error
		code   int
		line   string
		stderr string
	}{
		{nil, 0, "", ""},
		{client.ErrLeft, 0, "", ""},
		{context.Canceled, 0, "", ""},
		{chain(net.EndHostClosed, "host closed the connection: host closed the match"), 0, "", "tanks: The host ended the match.\n"},
		{chain(net.EndHostSilent, "host stopped responding"), 1,
			"tanks: Lost the connection to 203.0.113.5:7777: the host stopped answering.", ""},
		{chain(net.EndDropped, "host closed the connection: timed out"), 1,
			"tanks: The host at 203.0.113.5:7777 dropped you: it heard nothing from this computer for too long (was it asleep, paused or cut off?).", ""},
		{errors.New("render: no display"), 1, "tanks: render: no display", ""},
	} {
		var stderr strings.Builder
		err := outcome(c.err, host, &stderr)
		if code, line := cli.Code(err), cli.Line("tanks", err); code != c.code || line != c.line || stderr.String() != c.stderr {
			t.Errorf("outcome(%v): code %d line %q stderr %q\nwant %d %q %q", c.err, code, line, stderr.String(), c.code, c.line, c.stderr)
		}
		if err != nil && c.err != nil && !errors.Is(err, c.err) {
			t.Errorf("outcome(%v) lost the chain: %v", c.err, err)
		}
	}
}
