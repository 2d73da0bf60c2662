package main

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/treadline/treadline/lobby"
)

// errFull reports a store holding its maximum of listings.
var errFull = errors.New("the list is full")

// record is one listed match with what the list server keeps about it.
type record struct {
	lobby.Listing
	// Token is what the first registration was answered with (kept for older
	// hosts; ownership is the signature's).
	Token string
	// SignedAt is when the host signed the listed registration, ms since 1970:
	// a renewal must be newer.
	SignedAt int64
	// Expires is when the listing lapses unless renewed.
	Expires time.Time
	// Verified is when the list server last found the host answering at the
	// address with the fingerprint.
	Verified time.Time
}

// Store keeps the listings, by address. The list server holds its state only
// here: one process uses memStore; several instances behind a load balancer would
// share a Store backed by a shared database (docs/finding-matches.md). Methods are
// safe for concurrent use.
type Store interface {
	// Get returns the listing at addr, unless it has expired by now.
	Get(addr string, now time.Time) (record, bool)
	// Put stores r, replacing the listing at its address; it returns errFull when
	// the store holds its maximum and r is new.
	Put(r record, now time.Time) error
	// List appends the listings that have not expired by now to buf, sorted by
	// name and address.
	List(now time.Time, buf []record) []record
}

// memStore is the Store of one process: a map bounded to max listings, expired ones
// dropped as they are met.
type memStore struct {
	max int
	mu  sync.Mutex
	m   map[string]record
}

func newMemStore(max int) *memStore { return &memStore{max: max, m: map[string]record{}} }

func (s *memStore) Get(addr string, now time.Time) (record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.m[addr]
	if ok && !now.Before(r.Expires) {
		delete(s.m, addr)
		return record{}, false
	}
	return r, ok
}

func (s *memStore) Put(r record, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[r.Addr]; !ok && len(s.m) >= s.max {
		s.sweep(now)
		if len(s.m) >= s.max {
			return errFull
		}
	}
	s.m[r.Addr] = r
	return nil
}

func (s *memStore) List(now time.Time, buf []record) []record {
	s.mu.Lock()
	s.sweep(now)
	n := len(buf)
	for _, r := range s.m {
		buf = append(buf, r)
	}
	s.mu.Unlock()
	slices.SortFunc(buf[n:], func(a, b record) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Addr, b.Addr)
	})
	return buf
}

// sweep drops the expired listings; s.mu held.
func (s *memStore) sweep(now time.Time) {
	for k, r := range s.m {
		if !now.Before(r.Expires) {
			delete(s.m, k)
		}
	}
}
