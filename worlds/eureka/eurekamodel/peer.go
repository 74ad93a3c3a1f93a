package eurekamodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"sdchaos/clock"
)

// ReplicationHeader marks a request as replication; the receiver applies it
// with isReplication = true and never replicates it again.
const ReplicationHeader = "x-netflix-discovery-replication"

// batchPath is PeerReplicationResource's batch endpoint.
const batchPath = "/eureka/peerreplication/batch"

// batchRequest and batchResponse are the replication batch wire format.
type batchRequest struct {
	Items []ReplicationItem `json:"items"`
}

type batchResponse struct {
	Statuses []int `json:"statuses"`
}

// PeerStats counts one peer's replication traffic.
type PeerStats struct {
	Peer         string `json:"peer"`
	Batches      int    `json:"batches"`
	Items        int    `json:"items"`
	Timeouts     int    `json:"timeouts"`
	Refused      int    `json:"refused"`
	Reregistered int    `json:"reregistered"`
	Pending      int    `json:"pending"`
}

// peer is PeerEurekaNode: it batches the operations to replicate to one
// other server and sends them asynchronously.
type peer struct {
	url   string
	cfg   Config
	scale Scale
	clk   clock.Clock
	httpc *http.Client
	kick  chan struct{}

	mu    sync.Mutex
	b     *batcher
	stats PeerStats
}

func newPeer(url string, cfg Config, scale Scale, clk clock.Clock) *peer {
	return &peer{url: url, cfg: cfg, scale: scale, clk: clk, kick: make(chan struct{}, 1),
		b: newBatcher(cfg.BatchDelay, cfg.BatchSize), stats: PeerStats{Peer: url},
		httpc: &http.Client{Timeout: scale.RealNet(cfg.PeerTimeout)}}
}

// submit queues one operation for this peer.
func (p *peer) submit(action string, inst Instance) {
	now := p.clk.Now()
	p.mu.Lock()
	p.b.add(replTask{item: ReplicationItem{Action: action, Instance: inst}, submitted: now, expiry: now.Add(p.cfg.ReplicationExpiry)})
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *peer) snapshot() PeerStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Pending = p.b.len()
	return s
}

// run sends batches as they come due until ctx ends.
func (p *peer) run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		p.mu.Lock()
		due, ok := p.b.dueAt()
		p.mu.Unlock()
		wait := time.Hour
		if ok {
			wait = max(p.scale.Real(due.Sub(p.clk.Now())), 0)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-p.kick:
			continue
		case <-timer.C:
		}
		if pause := p.sendDue(ctx); pause > 0 && clock.SleepFor(ctx, p.scale.Real(pause)) != nil {
			return
		}
	}
}

// sendDue sends the due batch, if any, and returns how long to pause.
func (p *peer) sendDue(ctx context.Context) time.Duration {
	p.mu.Lock()
	batch := p.b.take(p.clk.Now())
	p.mu.Unlock()
	if len(batch) == 0 {
		return 0
	}
	statuses, err := p.post(ctx, batch)
	if err != nil {
		return p.failed(batch, err)
	}
	p.handle(batch, statuses)
	return 0
}

// Errors of a replication request, as ReplicationTaskProcessor classifies them.
var (
	errCongestion = errors.New("peer congested (503)")
	errPermanent  = errors.New("peer rejected the batch")
)

// failed handles a batch that did not get through: a rejected batch is
// dropped; otherwise it is requeued and the dispatcher pauses
// CongestionRetry after a timeout or a 503, NetworkRetry after another
// network error.
func (p *peer) failed(batch []replTask, err error) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if errors.Is(err, errPermanent) {
		return 0
	}
	p.b.requeue(batch, p.clk.Now())
	var ne net.Error
	if errors.Is(err, errCongestion) || errors.As(err, &ne) && ne.Timeout() {
		p.stats.Timeouts++
		return p.cfg.CongestionRetry
	}
	p.stats.Refused++
	return p.cfg.NetworkRetry
}

// handle applies the per-item answers: a heartbeat the peer does not know
// (404) is followed by a register of that instance to the peer.
func (p *peer) handle(batch []replTask, statuses []int) {
	p.mu.Lock()
	p.stats.Batches++
	p.stats.Items += len(batch)
	p.mu.Unlock()
	for i, t := range batch {
		if i < len(statuses) && statuses[i] == http.StatusNotFound && t.item.Action == ActHeartbeat {
			p.mu.Lock()
			p.stats.Reregistered++
			p.mu.Unlock()
			p.submit(ActRegister, t.item.Instance)
		}
	}
}

func (p *peer) post(ctx context.Context, batch []replTask) ([]int, error) {
	req := batchRequest{Items: make([]ReplicationItem, len(batch))}
	for i, t := range batch {
		req.Items[i] = t.item
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url+batchPath, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set(ReplicationHeader, "true")
	hr.Header.Set("Content-Type", "application/json")
	resp, err := p.httpc.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusServiceUnavailable:
		return nil, errCongestion
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%w: %s answered %s", errPermanent, p.url, resp.Status)
	}
	var out batchResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decoding the answer of %s: %w", p.url, err)
	}
	return out.Statuses, nil
}
