// Command tanklist is a list server for Treadline matches, in the spirit of BZFlag's:
// hosts register with it over HTTPS (tankhost -list URL, tanks -host -list URL) and
// renew every TTL/3; a listing lapses when the renewals stop. Before it lists an
// address the server checks that a Treadline host answers there with the
// registered certificate fingerprint (a QUIC handshake with the fingerprint pinned,
// up to the host's challenge), so that the list cannot point players at someone
// else's address; it checks again every 10 minutes, and whenever the fingerprint
// changes. A listing belongs to the host: each registration is signed by the key
// of the certificate the fingerprint names, so nobody else can list, rename, take
// over or keep off the list a host's address. Players read the list as JSON (tanks -lists URL) or as a web page.
//
//	tanklist -listen :8443 [-cert FILE -key FILE | -identity FILE] [-ttl 60s]
//	         [-max-matches 10000] [-verify-timeout 8s] [-allow-private] [-log-level info]
//
// Without -cert it keeps a self-signed certificate in list-identity.pem in the user's
// config directory (or the file -identity names) and prints its URL with the
// certificate's fingerprint, https://HOST:PORT/#FINGERPRINT, which hosts and players
// give as is: the fingerprint pins the certificate. With -cert and -key (a
// certificate browsers trust) the plain URL serves.
//
// It survives hostile input: registrations are at most 4 KiB of known JSON fields,
// checked like every announcement; each source address may register every two
// seconds (in bursts of 10) and read ten times a second; at most 16 checks run at
// once and an address that failed one is not checked again for a minute; the list
// holds at most -max-matches; only global unicast addresses are probed, private
// ones too with -allow-private (a list for one site, or tests), each probe a few
// datagrams, each IP that did not register itself a few times a minute, and a
// failed check is answered with one generic sentence; it holds at most 1024
// connections, 32 per IP, each with 5 s for its TLS handshake and 30 s idle. Its state is in memory,
// behind an interface that a shared store could implement (docs/finding-matches.md).
//
// Endpoints: POST /v1/register, GET /v1/matches (JSON), GET / (the page), GET
// /healthz.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	stdnet "net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/net"
)

// DefaultListen is the address tanklist listens on unless -listen says otherwise.
const DefaultListen = ":8443"

func main() {
	cli.Main("tanklist", func(ctx context.Context, args []string, _, stderr io.Writer) error {
		return run(ctx, args, stderr, nil)
	})
}

// flags are tanklist's command line.
type flags struct {
	listen, certFile, keyFile string
	identity                  cli.Identity
	level                     slog.Level
	cfg                       config
}

func parseFlags(args []string, stderr io.Writer) (flags, error) {
	fs := cli.NewFlagSet("tanklist", stderr)
	var f flags
	fs.StringVar(&f.listen, "listen", DefaultListen, "TCP `address` to serve HTTPS on")
	fs.StringVar(&f.certFile, "cert", "", "certificate `file` (PEM), with -key; default: a kept self-signed one")
	fs.StringVar(&f.keyFile, "key", "", "private key `file` (PEM) of -cert")
	fs.StringVar(&f.identity.Path, "identity", "", "`file` keeping the self-signed key and certificate (default: list-identity.pem in the user's config directory)")
	fs.BoolVar(&f.identity.Rotate, "new-identity", false, "make a new self-signed key and certificate (hosts and players must pin the new fingerprint)")
	fs.DurationVar(&f.cfg.ttl, "ttl", DefaultTTL, "how long a listing lasts without a renewal (hosts renew every third of it)")
	fs.IntVar(&f.cfg.maxMatches, "max-matches", DefaultMaxMatches, "most matches listed at once")
	fs.DurationVar(&f.cfg.verifyTimeout, "verify-timeout", DefaultVerifyTimeout, "how long the check of a registered host may take")
	fs.BoolVar(&f.cfg.allowPrivate, "allow-private", false, "probe and list private addresses too: loopback, RFC 1918, carrier NAT, link-local, unique local, documentation, benchmarking (a list for one site)")
	fs.TextVar(&f.level, "log-level", slog.LevelInfo, "log `level`: debug, info, warn or error")
	if err := cli.Parse(fs, args); err != nil {
		return f, err
	}
	switch {
	case f.cfg.ttl < 3*time.Second || f.cfg.ttl > 24*time.Hour:
		return f, cli.Usagef("ttl", "%v: give 3s to 24h", f.cfg.ttl)
	case f.cfg.verifyTimeout < 100*time.Millisecond || f.cfg.verifyTimeout > time.Minute:
		return f, cli.Usagef("verify-timeout", "%v: give 100ms to 1m", f.cfg.verifyTimeout)
	case f.cfg.maxMatches < 1 || f.cfg.maxMatches > 10_000_000:
		return f, cli.Usagef("max-matches", "%d: give 1 to 10000000", f.cfg.maxMatches)
	case (f.certFile == "") != (f.keyFile == ""):
		return f, cli.Usagef("cert", "and -key go together")
	case f.certFile != "" && (f.identity.Path != "" || f.identity.Rotate):
		return f, cli.Usagef("identity", "and -new-identity are for the self-signed certificate; -cert gives another")
	}
	if err := cli.ListenAddr("listen", f.listen); err != nil {
		return f, err
	}
	for _, fl := range []struct{ name, path string }{{"cert", f.certFile}, {"key", f.keyFile}} {
		if fl.path != "" {
			if err := cli.InputFile(fl.name, fl.path); err != nil {
				return f, err
			}
		}
	}
	f.cfg.registerRate, f.cfg.registerBurst, f.cfg.readRate = DefaultRegisterRate, DefaultRegisterBurst, DefaultReadRate
	f.cfg.reverify = DefaultReverify
	return f, nil
}

// certificate loads -cert and -key, or the kept self-signed identity; pin is the
// self-signed certificate's fingerprint, "" for -cert.
func (f flags) certificate() (cert tls.Certificate, pin string, err error) {
	if f.certFile != "" {
		cert, err = tls.LoadX509KeyPair(f.certFile, f.keyFile)
		if err != nil {
			return cert, "", cli.Usagef("cert", "%s: %v", f.certFile, err)
		}
		return cert, "", nil
	}
	id := f.identity
	if id.Path == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return cert, "", cli.Usagef("identity", "is needed: this user has no config directory; give a file")
		}
		id.Path = filepath.Join(dir, "treadline", "list-identity.pem")
	}
	c, _, _, err := id.Load(time.Now())
	if err != nil {
		return cert, "", err
	}
	return *c, net.Fingerprint(c.Certificate[0]), nil
}

// run serves until ctx ends. ready, if set, is called with the URL players and hosts
// give, once the server listens.
func run(ctx context.Context, args []string, stderr io.Writer, ready func(url string)) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: f.level}))
	cert, pin, err := f.certificate()
	if err != nil {
		return err
	}
	f.cfg.now, f.cfg.log = time.Now, log
	ln, err := stdnet.Listen("tcp", f.listen)
	if err != nil {
		return cli.ListenError("listen", f.listen, err)
	}
	url := "https://" + ln.Addr().String() + "/"
	if pin != "" {
		url += "#" + pin
	}
	log.Info("serving", "url", url, "ttl", f.cfg.ttl, "max_matches", f.cfg.maxMatches, "allow_private", f.cfg.allowPrivate)
	if ready != nil {
		ready(url)
	}
	return serve(ctx, ln, f.cfg, cert, log)
}

// serve serves the list on ln until ctx ends: at most cfg.maxConns connections,
// cfg.maxConnsPerSource from one IP (the others closed as they come), HTTP/1.1
// only, each connection's TLS handshake and headers within cfg.handshakeTimeout
// and its idle time within cfg.idleTimeout.
func serve(ctx context.Context, ln stdnet.Listener, cfg config, cert tls.Certificate, log *slog.Logger) error {
	cfg = cfg.withDefaults()
	srv := newServer(cfg, newMemStore(cfg.maxMatches))
	hs := &http.Server{
		Handler:           srv,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){}, // no HTTP/2: a smaller connection
		ReadHeaderTimeout: cfg.handshakeTimeout,                                     // bounds the TLS handshake too
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      20 * time.Second, // a registration waits for its check
		IdleTimeout:       cfg.idleTimeout,
		MaxHeaderBytes:    8 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	done := make(chan error, 1)
	go func() { done <- hs.ServeTLS(limitListener(ln, cfg.maxConns, cfg.maxConnsPerSource), "", "") }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-done
	log.Info("stopped")
	if errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}
