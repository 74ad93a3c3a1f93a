package eurekamodel

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"time"

	"sdchaos/clock"
)

// HTTP paths of the model's API (a JSON simplification of Eureka's REST API).
const (
	// AppsPath serves the full registry (GET).
	AppsPath = "/eureka/apps"
	// StatusPath answers 200 once the server runs (it does not touch the
	// response cache, unlike a fetch).
	StatusPath = "/eureka/status"
)

// AppsResponse is the body of a full fetch.
type AppsResponse struct {
	Instances []Instance `json:"instances"`
}

// Server is one Eureka server: the registry, its periodic tasks, the peers
// it replicates to and the HTTP API. The rules live in Registry; Server only
// moves requests and time.
type Server struct {
	name  string
	cfg   Config
	scale Scale
	clk   clock.Clock
	reg   *Registry
	peers []*peer
	delay atomic.Int64 // injected latency per request, model ns
	tasks Tasks        // driven by Run only
}

// NewServer returns a server replicating to peerURLs; seed drives its
// eviction choices. clk must run on model time (Scale.Clock).
func NewServer(name string, cfg Config, scale Scale, clk clock.Clock, peerURLs []string, seed uint64) *Server {
	s := &Server{name: name, cfg: cfg, scale: scale, clk: clk, reg: NewRegistry(name, cfg, clk, seed)}
	for _, u := range peerURLs {
		s.peers = append(s.peers, newPeer(u, cfg, scale, clk))
	}
	return s
}

// SetDelay makes every request (clients' and peers') wait d of model time
// before it is handled: latency added on this server.
func (s *Server) SetDelay(d time.Duration) { s.delay.Store(int64(d)) }

// PeerStats returns the replication counters of every peer.
func (s *Server) PeerStats() []PeerStats {
	out := make([]PeerStats, len(s.peers))
	for i, p := range s.peers {
		out[i] = p.snapshot()
	}
	return out
}

// Run opens the registry for traffic (with an empty start-up sync: the
// model's servers start together), starts the periodic tasks and the peer
// dispatchers, and returns when ctx ends.
func (s *Server) Run(ctx context.Context) {
	s.reg.Open(0)
	s.reg.Schedule(&s.tasks)
	for _, p := range s.peers {
		go p.run(ctx)
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		next, _ := s.tasks.Next()
		timer.Reset(max(s.scale.Real(next.Sub(s.clk.Now())), 0))
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		s.tasks.RunDue(s.clk.Now())
	}
}

// replicate sends a local (non-replicated) change to every peer.
func (s *Server) replicate(action string, inst Instance) {
	for _, p := range s.peers {
		p.submit(action, inst)
	}
}

// Handler returns the HTTP API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+AppsPath+"/{app}", s.handleRegister)
	mux.HandleFunc("PUT "+AppsPath+"/{app}/{id}", s.handleRenew)
	mux.HandleFunc("DELETE "+AppsPath+"/{app}/{id}", s.handleCancel)
	mux.HandleFunc("GET "+AppsPath, s.handleApps)
	mux.HandleFunc("GET "+StatusPath, func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.reg.Stats()) })
	mux.HandleFunc("POST "+batchPath, s.handleBatch)
	return s.delayed(mux)
}

// delayed applies the injected latency before a request is handled. Like
// latency on the network path, it does not care whether the sender is still
// waiting: a request whose sender timed out meanwhile is still applied.
func (s *Server) delayed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := time.Duration(s.delay.Load()); d > 0 {
			time.Sleep(s.scale.Real(d))
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) {
	var inst Instance
	if err := json.NewDecoder(r.Body).Decode(&inst); err != nil || inst.ID == "" {
		http.Error(w, "bad instance", http.StatusBadRequest)
		return
	}
	inst.App = r.PathValue("app")
	s.reg.Register(inst, false)
	s.replicate(ActRegister, inst)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleRenew(w http.ResponseWriter, r *http.Request) {
	app, id := r.PathValue("app"), r.PathValue("id")
	if !s.reg.Renew(app, id, false) {
		http.Error(w, "unknown instance", http.StatusNotFound)
		return
	}
	if inst, ok := s.reg.Lookup(app, id); ok {
		s.replicate(ActHeartbeat, inst)
	}
	w.WriteHeader(http.StatusOK)
}

func (s *Server) handleCancel(w http.ResponseWriter, r *http.Request) {
	app, id := r.PathValue("app"), r.PathValue("id")
	if !s.reg.Cancel(app, id, false) {
		http.Error(w, "unknown instance", http.StatusNotFound)
		return
	}
	s.replicate(ActCancel, Instance{App: app, ID: id})
	w.WriteHeader(http.StatusOK)
}

func (s *Server) handleApps(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, AppsResponse{Instances: s.reg.Apps()})
}

// handleBatch applies a replication batch (isReplication = true, so nothing
// is replicated again) and answers one status per item.
func (s *Server) handleBatch(w http.ResponseWriter, r *http.Request) {
	var req batchRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad batch", http.StatusBadRequest)
		return
	}
	resp := batchResponse{Statuses: make([]int, len(req.Items))}
	for i, it := range req.Items {
		resp.Statuses[i] = s.apply(it)
	}
	writeJSON(w, resp)
}

func (s *Server) apply(it ReplicationItem) int {
	in := it.Instance
	ok := true
	switch it.Action {
	case ActRegister:
		s.reg.Register(in, true)
	case ActHeartbeat:
		ok = s.reg.Renew(in.App, in.ID, true)
	case ActCancel:
		ok = s.reg.Cancel(in.App, in.ID, true)
	default:
		return http.StatusBadRequest
	}
	if !ok {
		return http.StatusNotFound
	}
	return http.StatusOK
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
