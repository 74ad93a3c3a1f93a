// Package peerproxy is a raft-aware HTTP proxy in front of etcd members'
// peer ports, for isolating a member that runs as a plain process (an etcd
// binary the harness did not build in, which has no CutPeer switch). Each
// member advertises its proxy's URL as its peer URL; every raft request
// names its sender (rafthttp's X-Server-From header), so a proxy can drop
// the traffic of one member without touching the others, both ways or one
// way. A dropped request is held (a blackhole, as a partition looks to
// TCP) until the cut heals or its sender gives up, then answered 503 so
// the sender dials again; requests in flight when the cut starts are ended.
//
// Semantics of a cut of member X: both ways, every request to X (at X's
// proxy) and every request from X (at the others') is dropped. One way
// (X's messages to its peers are lost, theirs still reach X): at X's proxy
// the stream GETs its peers open (they carry X's messages back to them),
// and at the others' proxies the POSTs X sends (its pipeline messages).
package peerproxy

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
)

// fromHeader is the header rafthttp sets to the sending member's id (hex).
const fromHeader = "X-Server-From"

// Cut is one member cut off from its peers.
type Cut struct {
	// ID is the member's id (hex, as etcd prints it); Port is its proxy's
	// listening port (its advertised peer port).
	ID   string
	Port int
	// OneWay drops only the member's own messages.
	OneWay bool
}

// Set is the proxies of one cluster and the cuts in force.
type Set struct {
	mu      sync.Mutex
	cuts    []Cut
	changed chan struct{}
	proxies []*Proxy
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{changed: make(chan struct{})} }

// Proxy forwards one member's peer traffic.
type Proxy struct {
	set    *Set
	port   int
	ln     net.Listener
	srv    *http.Server
	mu     sync.Mutex
	active map[*flight]struct{}
}

type flight struct {
	from, method string
	cancel       context.CancelFunc
}

// Add starts a proxy listening on listen ("127.0.0.1:port") that forwards
// to target (the member's real peer listener, "127.0.0.1:port").
func (s *Set) Add(listen, target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("peer proxy on %s: %w", listen, err)
	}
	p := &Proxy{set: s, port: ln.Addr().(*net.TCPAddr).Port, ln: ln, active: map[*flight]struct{}{}}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: target})
	rp.FlushInterval = -1                    // raft streams: flush every write
	rp.ErrorLog = log.New(io.Discard, "", 0) // a cut ends streams mid-body by design
	rp.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) }
	p.srv = &http.Server{Handler: p.handler(rp)}
	go func() { _ = p.srv.Serve(ln) }()
	s.mu.Lock()
	s.proxies = append(s.proxies, p)
	s.mu.Unlock()
	return p, nil
}

// Addr returns the proxy's listening address.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) handler(rp *httputil.ReverseProxy) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from := r.Header.Get(fromHeader)
		if p.set.hold(r.Context(), p.port, from, r.Method) {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		f := &flight{from: from, method: r.Method, cancel: cancel}
		p.mu.Lock()
		p.active[f] = struct{}{}
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			delete(p.active, f)
			p.mu.Unlock()
			cancel()
		}()
		rp.ServeHTTP(w, r.WithContext(ctx))
	})
}

// dropped reports whether a request from `from` with method, arriving at
// the proxy on port, falls under cut c.
func (c Cut) dropped(port int, from, method string) bool {
	switch {
	case port == c.Port && !c.OneWay:
		return true
	case port == c.Port:
		return method == http.MethodGet
	case from == c.ID && !c.OneWay:
		return true
	case from == c.ID:
		return method == http.MethodPost
	}
	return false
}

// hold waits while a cut drops the request; it returns whether one did.
func (s *Set) hold(ctx context.Context, port int, from, method string) bool {
	held := false
	for {
		s.mu.Lock()
		drop, changed := s.drops(port, from, method), s.changed
		s.mu.Unlock()
		if !drop {
			return held
		}
		held = true
		select {
		case <-ctx.Done():
			return true
		case <-changed:
		}
	}
}

func (s *Set) drops(port int, from, method string) bool {
	for _, c := range s.cuts {
		if c.dropped(port, from, method) {
			return true
		}
	}
	return false
}

// Isolate puts c in force and ends the requests in flight it drops.
func (s *Set) Isolate(c Cut) {
	s.mu.Lock()
	s.cuts = append(s.cuts, c)
	s.notify()
	proxies := append([]*Proxy(nil), s.proxies...)
	s.mu.Unlock()
	for _, p := range proxies {
		p.mu.Lock()
		for f := range p.active {
			if c.dropped(p.port, f.from, f.method) {
				f.cancel()
			}
		}
		p.mu.Unlock()
	}
}

// Heal lifts every cut of member id (any direction); healing a member that
// is not cut does nothing.
func (s *Set) Heal(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.cuts[:0]
	for _, c := range s.cuts {
		if c.ID != id {
			kept = append(kept, c)
		}
	}
	s.cuts = kept
	s.notify()
}

// notify wakes held requests (s.mu held).
func (s *Set) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// ControlHandler serves POST /isolate?id=ID&port=PORT&direction=both|one-way
// and POST /heal?id=ID, for a nemesis command (curl).
func (s *Set) ControlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /isolate", func(w http.ResponseWriter, r *http.Request) {
		port, err := strconv.Atoi(r.URL.Query().Get("port"))
		id, dir := r.URL.Query().Get("id"), r.URL.Query().Get("direction")
		if err != nil || id == "" || (dir != "both" && dir != "one-way") {
			http.Error(w, "want id=ID&port=PORT&direction=both|one-way", http.StatusBadRequest)
			return
		}
		s.Isolate(Cut{ID: id, Port: port, OneWay: dir == "one-way"})
		fmt.Fprintf(w, "isolated %s (%s)\n", id, dir)
	})
	mux.HandleFunc("POST /heal", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("id")
		if id == "" {
			http.Error(w, "want id=ID", http.StatusBadRequest)
			return
		}
		s.Heal(id)
		fmt.Fprintf(w, "healed %s\n", id)
	})
	return mux
}

// Close stops every proxy.
func (s *Set) Close() {
	s.mu.Lock()
	proxies := s.proxies
	s.proxies = nil
	s.mu.Unlock()
	for _, p := range proxies {
		_ = p.srv.Close()
	}
}
