// Command tanks is the Treadline desktop client. With no match flag it opens the main
// menu: Practice (Enter: an in-process host with bots on loopback, behind an impaired
// link, so every other tank is really dead-reckoned), Host, Join, Settings and Quit.
// A match flag starts that match directly:
//
//	tanks -bots N [-lag D -jitter D -loss F -loss-burst N]   practice
//	tanks -host :7777 [-pass P] [-bots N] [-identity FILE] [-new-identity] [-dis ADDR:PORT]
//	tanks -join ADDR[#fingerprint] [-name N] [-pass P] [-lag D -jitter D -loss F -loss-burst N]
//	tanks -list [-lists URL,…] [-lan all|off|IFACE,…]   print the matches found, then exit
//	tanks -replay FILE [-seek D] [-speed X] [-ab ALGORITHM] [-killcam]
//
// The menu's Join a match lists, live, the matches found on the local network and on
// the list servers -lists names (remembered in the settings, and editable there), with
// the pings this client measures, and joins the selected one with Enter. -list prints,
// without opening a window, one line per match found on the local network (and on the
// list servers of -lists, or the remembered ones), each ending with the "tanks -join"
// line that joins it. A hosted match (-host, not practice) is announced on the local
// network (-lan picks the interfaces) and, with -list URL, registered with that list
// server (cmd/tanklist). -map picks the hosted map (built in: valley, dunes, expanse), -maps
// DIR adds maps; the maps are built in, so tanks runs from any directory.
//
// -lag, -jitter, -loss and -loss-burst impair this player's own link both ways, as
// drlab's flags do: up to 500 ms of delay each way, losses in runs of -loss-burst
// packets on average. A join holds on any such link. The window opens at once on the
// connecting screen ("Connecting to 203.0.113.5:7777…" and each step as it passes;
// Esc cancels); a join that fails says why in one sentence there until a key is
// pressed, then exits with it ("tanks: No answer from 203.0.113.5:7777: check the
// address and port, …"), the error chain going to the log (-v). From the menu, a
// failure goes back to the Join menu with the sentence (a wrong passphrase is asked
// for again).
//
// -record FILE records the match (the "Record matches" setting records every match
// into the recordings folder beside the settings); -replay FILE watches a recording:
// play, pause, seek, speed, frame steps, keys 1–7 re-reckon every tank with another
// algorithm, B shows a second algorithm as a ghost, K the kill camera (RECORDING.md).
//
// Settings (keys, mouse, field of view, quality, volume, name, team colour) live in
// settings.json in the user's config directory; -mute plays without sound. With
// -host, flags such as -max-handshakes, -retry-above, -max-players-per-addr,
// -idle-kick and -mem-limit tune the host's defences, as on tankhost
// (docs/security.md).
//
// Display and debugging: -size 1280x720, -overlays ghost,trail,clamp,motion,labels,hits
// (or all), -algorithm pvb|static|linear|quadratic|bezier|twopath|delayed,
// -clamp none|up|always, -watch NAME ("*": the first remote tank), -orbit DEG (the
// camera's angle around the tank it follows: 90 looks from its right). For tests, docs
// and bug reports, -screenshot FILE.png -frames N (or -duration D) renders, writes the
// picture and exits (-duration also pictures the connecting screen when the match
// has not started by then), -bench-frames N prints the split of frame time
// (simulation, scene update, render, swap), and -cpuprofile FILE writes the run's CPU
// profile for go tool pprof. F1 in the game lists every key.
//
// It exits 0 when the window is closed, the player quits or leaves, the host ends
// the match or SIGINT/SIGTERM stops it; 1 with a sentence ("tanks: Lost the connection
// to 203.0.113.5:7777: the host stopped answering.") when the match cannot start or is
// lost, the error chain going to the log; and 2, before anything starts, with one line
// naming the flag and what it allows, on a bad command line.
package main

import (
	"context"
	"io"

	"github.com/treadline/treadline/cmd/internal/cli"
)

func main() { cli.Main("tanks", run) }

// run parses args and plays the match they ask for. A bad command line is a
// *cli.UsageError, returned before any window opens or socket is bound.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("tanks", stderr)
	c, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if c.list.set && c.list.urls == "" {
		return listMatches(ctx, c, stdout, stderr)
	}
	return play(ctx, c, wantsMenu(cli.Set(fs)), stderr)
}
