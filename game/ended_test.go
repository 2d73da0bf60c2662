package game

import (
	"errors"
	"fmt"
	"testing"

	"github.com/treadline/treadline/net"
)

func TestExplain(t *testing.T) {
	for _, c := range []struct {
		err    error
		words  string
		normal bool
	}{
		{&EndedError{net.EndHostClosed, "host closed the connection: host closed the match"}, "The host ended the match.", true},
		{fmt.Errorf("match: %w", &EndedError{net.EndLeft, "left the match"}), "You left the match.", true},
		{&EndedError{net.EndHostSilent, "host stopped responding"},
			"Lost the connection to 203.0.113.5:7777: the host stopped answering.", false},
		{&EndedError{net.EndHostSilent, "host stopped responding after this program stalled for 10 s"},
			"Lost the connection to 203.0.113.5:7777: the host stopped answering. This program had stalled for 10 s first, so the host has most likely dropped you.", false},
		{&EndedError{net.EndDropped, "host closed the connection: timed out"},
			"The host at 203.0.113.5:7777 dropped you: it heard nothing from this computer for too long (was it asleep, paused or cut off?).", false},
		{&EndedError{net.EndKicked, "kicked by the host: control message flood"},
			"The host at 203.0.113.5:7777 removed you from the match (control message flood).", false},
		{&EndedError{net.EndConnection, "stream reset"}, "Lost the connection to 203.0.113.5:7777: stream reset.", false},
		{errors.New("physics exploded"), "The match stopped: physics exploded.", false},
	} {
		words, normal := Explain(c.err, "203.0.113.5:7777")
		if words != c.words || normal != c.normal {
			t.Errorf("Explain(%v) = %q, %v\nwant %q, %v", c.err, words, normal, c.words, c.normal)
		}
		if !errors.Is(c.err, ErrLinkClosed) && errors.As(c.err, new(*EndedError)) {
			t.Errorf("%v does not wrap ErrLinkClosed", c.err)
		}
	}
	if words, _ := Explain(&EndedError{net.EndHostSilent, "x"}, ""); words != "Lost the connection to the host: the host stopped answering." {
		t.Errorf("no address: %q", words)
	}
}
