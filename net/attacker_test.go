package net

// A small attacker for the host's own attack tests: forged QUIC Initials, real
// ClientHellos that never finish (optionally following Retry), half-open joins and
// passphrase guessing, each from a chosen loopback address so that tests can put
// the attacker and honest players in different /24 prefixes (127.0.0.x and
// 127.0.1.x are both loopback on Linux).

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"io"
	stdnet "net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/net/wire"
)

// quicInitialSalt is QUIC version 1's Initial salt (RFC 9001, section 5.2).
const quicInitialSalt = "\x38\x76\x2c\xf7\xf5\x59\x34\xb3\x4d\x17\x9a\xe6\xa4\xc8\x0c\xad\xcc\xbb\x7f\x0a"

// minInitialSize is the smallest UDP payload a server accepts an Initial in.
const minInitialSize = 1200

// attackSocket is the attacker's one UDP socket, bound to a chosen loopback address;
// it counts bytes each way so that tests can measure reflection.
type attackSocket struct {
	pc        *stdnet.UDPConn
	target    *stdnet.UDPAddr
	sent      atomic.Int64
	received  atomic.Int64
	retries   chan retryPacket // Retry packets seen, when followRetry
	wg        sync.WaitGroup
	followRet bool
}

// retryPacket is what a client needs from a Retry to try again.
type retryPacket struct {
	scid, token []byte
}

// newAttackSocket opens a UDP socket on local (an IP, "127.0.0.9") aimed at target,
// and starts counting what comes back. The socket closes with the test.
func newAttackSocket(t testing.TB, local string, target stdnet.Addr, followRetry bool) *attackSocket {
	t.Helper()
	pc, err := stdnet.ListenUDP("udp", &stdnet.UDPAddr{IP: stdnet.ParseIP(local)})
	if err != nil {
		t.Fatal(err)
	}
	pc.SetReadBuffer(4 << 20)
	s := &attackSocket{pc: pc, target: target.(*stdnet.UDPAddr), followRet: followRetry,
		retries: make(chan retryPacket, 1024)}
	s.wg.Add(1)
	go s.read()
	t.Cleanup(func() { pc.Close(); s.wg.Wait() })
	return s
}

func (s *attackSocket) read() {
	defer s.wg.Done()
	buf := make([]byte, 2048)
	for {
		n, err := s.pc.Read(buf)
		if err != nil {
			return
		}
		s.received.Add(int64(n))
		if s.followRet && n > 7 && buf[0]&0xf0 == 0xf0 { // long header, type Retry
			if r, ok := parseRetry(buf[:n]); ok {
				select {
				case s.retries <- r:
				default:
				}
			}
		}
	}
}

func (s *attackSocket) send(b []byte) {
	if n, err := s.pc.WriteToUDP(b, s.target); err == nil {
		s.sent.Add(int64(n))
	}
}

// reflection returns the bytes received per byte sent.
func (s *attackSocket) reflection() float64 {
	sent := s.sent.Load()
	if sent == 0 {
		return 0
	}
	return float64(s.received.Load()) / float64(sent)
}

// appendVarint appends a QUIC variable-length integer (up to 2^30-1).
func appendVarint(b []byte, v uint64) []byte {
	switch {
	case v < 1<<6:
		return append(b, byte(v))
	case v < 1<<14:
		return binary.BigEndian.AppendUint16(b, uint16(v)|0x4000)
	default:
		return binary.BigEndian.AppendUint32(b, uint32(v)|0x80000000)
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// forgedInitial returns a 1200-byte QUIC v1 Initial with a valid long header, a
// random 8-byte DCID and SCID, and a random, undecryptable payload: no crypto needed.
func forgedInitial() []byte {
	b := []byte{0xc3, 0, 0, 0, 1, 8}
	b = append(b, randomBytes(8)...) // DCID
	b = append(b, 8)
	b = append(b, randomBytes(8)...) // SCID
	b = append(b, 0)                 // no token
	rest := minInitialSize - len(b) - 2
	b = appendVarint(b, uint64(rest))
	return append(b, randomBytes(rest)...)
}

// clientHello is a real TLS 1.3 ClientHello for the host's ALPN, with QUIC transport
// parameters naming scid as the client's connection id: what a real client sends,
// made once and reused.
func clientHello(t testing.TB, scid []byte) []byte {
	t.Helper()
	qc := tls.QUICClient(&tls.QUICConfig{TLSConfig: &tls.Config{
		ServerName: "treadline", NextProtos: []string{ALPN}, MinVersion: tls.VersionTLS13,
		InsecureSkipVerify: true, CurvePreferences: []tls.CurveID{tls.X25519},
	}})
	// initial_source_connection_id (0x0f), the one parameter a client must send.
	var params []byte
	params = appendVarint(params, 0x0f)
	params = appendVarint(params, uint64(len(scid)))
	params = append(params, scid...)
	qc.SetTransportParameters(params)
	if err := qc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer qc.Close()
	var hello []byte
	for ev := qc.NextEvent(); ev.Kind != tls.QUICNoEvent; ev = qc.NextEvent() {
		if ev.Kind == tls.QUICWriteData && ev.Level == tls.QUICEncryptionLevelInitial {
			hello = append(hello, ev.Data...)
		}
	}
	if len(hello) == 0 || len(hello) > 1000 {
		t.Fatalf("ClientHello of %d bytes", len(hello))
	}
	return hello
}

// expandLabel is TLS 1.3's HKDF-Expand-Label with an empty context.
func expandLabel(secret []byte, label string, n int) []byte {
	full := "tls13 " + label
	info := binary.BigEndian.AppendUint16(nil, uint16(n))
	info = append(info, byte(len(full)))
	info = append(info, full...)
	info = append(info, 0)
	out, err := hkdf.Expand(sha256.New, secret, string(info), n)
	if err != nil {
		panic(err)
	}
	return out
}

// sealedInitial returns a protected QUIC v1 Initial (RFC 9001, section 5) carrying
// hello in a CRYPTO frame, padded to 1200 bytes, for dcid and scid and an optional
// Retry token: a real client's first packet.
func sealedInitial(hello, dcid, scid, token []byte) []byte {
	initial, _ := hkdf.Extract(sha256.New, dcid, []byte(quicInitialSalt))
	secret := expandLabel(initial, "client in", 32)
	key, iv, hp := expandLabel(secret, "quic key", 16), expandLabel(secret, "quic iv", 12), expandLabel(secret, "quic hp", 16)

	const pnLen = 4
	b := []byte{0xc0 | (pnLen - 1), 0, 0, 0, 1, byte(len(dcid))}
	b = append(b, dcid...)
	b = append(b, byte(len(scid)))
	b = append(b, scid...)
	b = appendVarint(b, uint64(len(token)))
	b = append(b, token...)
	// CRYPTO frame: type, offset 0, length, data; then PADDING to the minimum size.
	var payload []byte
	payload = append(payload, 0x06, 0)
	payload = appendVarint(payload, uint64(len(hello)))
	payload = append(payload, hello...)
	const tagLen = 16
	length := pnLen + len(payload) + tagLen
	if hdr := len(b) + 2 + length; hdr < minInitialSize {
		payload = append(payload, make([]byte, minInitialSize-hdr)...)
		length = pnLen + len(payload) + tagLen
	}
	b = binary.BigEndian.AppendUint16(b, uint16(length)|0x4000)
	pnOffset := len(b)
	b = append(b, 0, 0, 0, 0) // packet number 0

	block, _ := aes.NewCipher(key)
	aead, _ := cipher.NewGCM(block)
	b = aead.Seal(b, iv, payload, b) // nonce = iv XOR 0
	// Header protection.
	hpBlock, _ := aes.NewCipher(hp)
	var mask [16]byte
	hpBlock.Encrypt(mask[:], b[pnOffset+4:pnOffset+4+16])
	b[0] ^= mask[0] & 0x0f
	for i := range pnLen {
		b[pnOffset+i] ^= mask[1+i]
	}
	return b
}

// parseRetry reads the new server connection id and the token from a Retry packet.
func parseRetry(b []byte) (retryPacket, bool) {
	off := 5
	if len(b) < off+1 {
		return retryPacket{}, false
	}
	off += 1 + int(b[off]) // DCID (ours)
	if len(b) < off+1 {
		return retryPacket{}, false
	}
	n := int(b[off])
	off++
	if len(b) < off+n+16 {
		return retryPacket{}, false
	}
	scid := append([]byte(nil), b[off:off+n]...)
	off += n
	token := append([]byte(nil), b[off:len(b)-16]...)
	return retryPacket{scid: scid, token: token}, len(token) > 0
}

// flood sends rate packets per second made by next for d (or until ctx ends) and
// returns how many it sent. It paces in 10 ms slices, so it keeps up on a busy
// machine without spinning.
func flood(ctx context.Context, rate float64, d time.Duration, next func()) int {
	start := time.Now()
	sent := 0
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		el := time.Since(start)
		if el >= d || ctx.Err() != nil {
			return sent
		}
		for due := int(rate * el.Seconds()); sent < due; sent++ {
			next()
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
}

// floodForgedInitials sends n forged Initials over d from s.
func floodForgedInitials(ctx context.Context, s *attackSocket, n int, d time.Duration) int {
	return flood(ctx, float64(n)/d.Seconds(), d, func() { s.send(forgedInitial()) })
}

// floodClientHellos sends real ClientHellos that never finish at rate per second
// for d, all from s's one UDP port. With s following Retry, it answers each Retry
// with the token, as a real client would, and still never finishes: it never
// acknowledges or answers the host's handshake flight.
func floodClientHellos(t testing.TB, ctx context.Context, s *attackSocket, rate float64, d time.Duration) int {
	scid := randomBytes(8)
	hello := clientHello(t, scid)
	if s.followRet {
		done := make(chan struct{})
		defer close(done)
		go func() {
			for {
				select {
				case <-done:
					return
				case r := <-s.retries:
					s.send(sealedInitial(hello, r.scid, scid, r.token))
				}
			}
		}()
	}
	return flood(ctx, rate, d, func() { s.send(sealedInitial(hello, randomBytes(8), scid, nil)) })
}

// fromAddr returns a WrapConn that moves a client onto a UDP socket bound to the
// loopback address local, so that a test can pick the client's address prefix.
func fromAddr(local string) WrapConn {
	return func(pc stdnet.PacketConn) (stdnet.PacketConn, error) {
		pc.Close()
		return stdnet.ListenUDP("udp", &stdnet.UDPAddr{IP: stdnet.ParseIP(local)})
	}
}

// halfOpener keeps conns connections to h from local that finish the QUIC handshake
// and read the challenge but never send a JoinRequest, reopening each as the host
// closes it, until stop. It counts the connections it opened.
type halfOpener struct {
	opened atomic.Int64
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startHalfOpen(t testing.TB, h *Host, local string, conns int) *halfOpener {
	t.Helper()
	pc, err := stdnet.ListenUDP("udp", &stdnet.UDPAddr{IP: stdnet.ParseIP(local)})
	if err != nil {
		t.Fatal(err)
	}
	tr := &quic.Transport{Conn: pc}
	ctx, cancel := context.WithCancel(context.Background())
	o := &halfOpener{cancel: cancel}
	for range conns {
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			for ctx.Err() == nil {
				dctx, dcancel := context.WithTimeout(ctx, 3*time.Second)
				conn, err := tr.Dial(dctx, h.Addr(), clientTLS(h.Addr().String(), h.Fingerprint(), nil),
					&quic.Config{EnableDatagrams: true, MaxIncomingStreams: 1, HandshakeIdleTimeout: time.Second})
				dcancel()
				if err != nil {
					if ctx.Err() == nil {
						time.Sleep(20 * time.Millisecond)
					}
					continue
				}
				o.opened.Add(1)
				if str, err := conn.AcceptStream(ctx); err == nil {
					readFrame(str) // the challenge; then silence
				}
				select {
				case <-conn.Context().Done():
				case <-ctx.Done():
				}
				conn.CloseWithError(0, "")
			}
		}()
	}
	t.Cleanup(func() { o.stop(); tr.Close(); pc.Close() })
	return o
}

func (o *halfOpener) stop() { o.cancel(); o.wg.Wait() }

// readFrame reads one length-prefixed control message from r.
func readFrame(r io.Reader) (wire.Message, error) {
	var hdr [wire.FrameHeaderSize]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	body := make([]byte, binary.BigEndian.Uint16(hdr[:]))
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	m, _, err := wire.Parse(body)
	return m, err
}

// rawJoin joins the host at addr from local as name with a bare QUIC connection,
// presenting token, and then stays silent: no clock probes, no updates, as a
// client whose link died would (QUIC keep-alives aside). An empty pass sends a
// zero proof: a wrong guess that costs the guesser no key derivation. It returns
// the host's answer and the connection, which closes with the test.
func rawJoin(t testing.TB, addr stdnet.Addr, fp, local, name, pass string, token ReconnectToken) (wire.Message, *quic.Conn) {
	t.Helper()
	pc, err := stdnet.ListenUDP("udp", &stdnet.UDPAddr{IP: stdnet.ParseIP(local)})
	if err != nil {
		t.Fatal(err)
	}
	tr := &quic.Transport{Conn: pc}
	t.Cleanup(func() { tr.Close(); pc.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := tr.Dial(ctx, addr, clientTLS(addr.String(), fp, nil),
		&quic.Config{EnableDatagrams: true, MaxIncomingStreams: 1, MaxIdleTimeout: 2 * time.Minute,
			KeepAlivePeriod: 5 * time.Second})
	if err != nil {
		return nil, nil
	}
	t.Cleanup(func() { conn.CloseWithError(0, "") })
	str, err := conn.AcceptStream(ctx)
	if err != nil {
		return nil, conn
	}
	str.SetReadDeadline(time.Now().Add(5 * time.Second))
	m, err := readFrame(str)
	ch, ok := m.(*wire.Challenge)
	if err != nil || !ok {
		return nil, conn
	}
	req := wire.JoinRequest{Name: name, Token: token}
	if ch.PassphraseRequired && pass != "" {
		req.Proof = wire.Proof(wire.DeriveKey(pass, ch.Salt), ch.Nonce, name)
	}
	b, _ := wire.AppendFrame(nil, &req)
	if _, err := str.Write(b); err != nil {
		return nil, conn
	}
	m, _ = readFrame(str)
	return m, conn
}
