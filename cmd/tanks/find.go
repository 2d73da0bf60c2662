package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/lobby"
)

// listFor is how long "tanks -list" looks on the local network.
const listFor = time.Second

// listFlag is -list: alone, list the matches found and exit; with a URL (and -host),
// register the hosted match with that list server.
type listFlag struct {
	set  bool
	urls string
}

func (l *listFlag) String() string { return l.urls }

func (l *listFlag) Set(s string) error {
	l.set = true
	if s != "true" {
		l.urls = s
	}
	return nil
}

// IsBoolFlag lets -list stand alone.
func (l *listFlag) IsBoolFlag() bool { return true }

// joinListURL rewrites "-list URL" as "-list=URL", since -list also stands alone.
func joinListURL(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "-list" || a == "--list") && i+1 < len(args) && (strings.HasPrefix(args[i+1], "https://") || strings.HasPrefix(args[i+1], "http://")) {
			a += "=" + args[i+1]
			i++
		}
		out = append(out, a)
	}
	return out
}

// checkFinding checks -list, -lists and -lan against the rest of the command line.
func checkFinding(c *config, set map[string]bool) error {
	switch {
	case c.list.set && c.list.urls == "" && (set["host"] || set["join"]):
		return cli.Usagef("list", "alone lists the matches found and exits; with -host give it a list server's URL, -list https://HOST[:PORT]")
	case c.list.urls != "" && !set["host"]:
		return cli.Usagef("list", "%s: registering with a list server needs -host; -list alone lists the matches found", c.list.urls)
	case set["lists"] && (set["host"] || set["join"] || c.list.urls != ""):
		return cli.Usagef("lists", "goes with -list or the menu: the list servers to read the matches from")
	}
	if c.list.urls != "" {
		if _, err := cli.ListURLs("list", c.list.urls); err != nil {
			return err
		}
	}
	if set["lists"] {
		if _, err := cli.ListURLs("lists", c.lists); err != nil {
			return err
		}
	}
	if set["lan"] || c.list.set || set["host"] {
		if _, err := c.find.Interfaces("lan", c.host); err != nil {
			return err
		}
	}
	return nil
}

// splitURLs returns the URLs of a -list or -lists already checked.
func splitURLs(s string) []string {
	if s == "" {
		return nil
	}
	urls, _ := cli.ListURLs("", s)
	return urls
}

// listMatches prints the matches found on the local network and on the list servers,
// one line each ending with the command that joins it, and returns; a list server
// that cannot be read is said on stderr.
func listMatches(ctx context.Context, c config, stdout, stderr io.Writer) error {
	ifaces, err := c.find.Interfaces("lan", "")
	if err != nil {
		return err
	}
	var (
		mu    sync.Mutex
		found []lobby.Entry
		wg    sync.WaitGroup
	)
	if len(ifaces) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			entries, _, err := lobby.Find(ctx, lobby.BrowseConfig{Interfaces: ifaces}, listFor)
			if err != nil && ctx.Err() == nil {
				fmt.Fprintln(stderr, "tanks: the local network:", err)
			}
			mu.Lock()
			found = append(found, entries...)
			mu.Unlock()
		}()
	}
	lists := c.lists
	if !c.listsSet {
		lists = loadSettings(stderr).Lists // the lists the menu remembers
	}
	urls, err := cli.ListURLs("lists", lists)
	switch {
	case lists != "" && err != nil:
		fmt.Fprintln(stderr, "tanks: the remembered list servers:", err)
	case c.listsSet:
		// -lists is remembered, as the menu's List servers row is: the next -list and
		// the Join menu read them too.
		s := loadSettings(stderr)
		s.Lists = lists
		saveSettings(s, stderr)
	}
	for _, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			entries, err := lobby.FetchList(ctx, u)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				fmt.Fprintln(stderr, "tanks:", err)
				return
			}
			found = append(found, entries...)
		}()
	}
	wg.Wait()
	// A match found both ways is listed once, as found nearest.
	slices.SortStableFunc(found, func(a, b lobby.Entry) int { return strings.Compare(a.Key(), b.Key()) })
	found = slices.CompactFunc(found, func(a, b lobby.Entry) bool { return a.Key() == b.Key() })
	slices.SortFunc(found, func(a, b lobby.Entry) int {
		return strings.Compare(strings.ToLower(a.Name)+a.Addr, strings.ToLower(b.Name)+b.Addr)
	})
	for _, e := range found {
		fmt.Fprintln(stdout, e.Line())
	}
	if len(found) == 0 {
		fmt.Fprintln(stderr, "tanks: no matches found")
	}
	return nil
}
