package cluster

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// MemberMetrics is what one member's in-process sampler recorded.
type MemberMetrics struct {
	Name    string         `json:"name"`
	Samples []MetricSample `json:"samples"`
	// Lost says why the samples end early: the member process exited or
	// stopped answering its control channel ("" when neither happened).
	Lost string `json:"lost,omitempty"`
}

// MetricsCollector has every member sample its own metrics and fetches the
// samples over the control channel once a second, so a member that dies
// loses at most the last second.
type MetricsCollector struct {
	nodes []*Node
	mu    sync.Mutex
	out   []MemberMetrics
	stop  chan struct{}
	done  chan struct{}
}

// takeEvery is how often the collector fetches samples; takeTimeout bounds
// one fetch (a member too starved to answer in it counts as lost).
const (
	takeEvery   = time.Second
	takeTimeout = 10 * time.Second
)

// CollectMetrics starts sampling every running member every interval.
func (c *Cluster) CollectMetrics(interval time.Duration) (*MetricsCollector, error) {
	m := &MetricsCollector{nodes: c.nodes, out: make([]MemberMetrics, len(c.nodes)),
		stop: make(chan struct{}), done: make(chan struct{})}
	for i, n := range c.nodes {
		if n.ext != nil {
			m.halt()
			return nil, fmt.Errorf("sampling the metrics of etcd %s: only members the harness started sample their own metrics", n.Name)
		}
		m.out[i].Name = n.Name
		if _, err := m.control(i, fmt.Sprintf("metrics start %d", interval.Milliseconds())); err != nil {
			m.halt()
			return nil, fmt.Errorf("starting the metrics sampler of etcd %s: %w", n.Name, err)
		}
	}
	go m.loop()
	return m, nil
}

// control sends cmd to member i, marking it lost on failure.
func (m *MetricsCollector) control(i int, cmd string) (string, error) {
	m.mu.Lock()
	lost := m.out[i].Lost
	m.mu.Unlock()
	if lost != "" {
		return "", fmt.Errorf("etcd %s: %s", m.nodes[i].Name, lost)
	}
	ch := m.nodes[i].Child()
	if ch == nil || ch.Exited() {
		m.markLost(i, "its process exited")
		return "", fmt.Errorf("etcd %s: its process exited", m.nodes[i].Name)
	}
	ans, err := ch.Control(cmd, takeTimeout)
	if err != nil {
		why := "it stopped answering its control channel"
		if ch.Exited() {
			why = "its process exited"
		}
		m.markLost(i, why)
	}
	return ans, err
}

func (m *MetricsCollector) markLost(i int, why string) {
	m.mu.Lock()
	if m.out[i].Lost == "" {
		m.out[i].Lost = why
	}
	m.mu.Unlock()
}

func (m *MetricsCollector) loop() {
	defer close(m.done)
	t := time.NewTicker(takeEvery)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.takeAll()
		}
	}
}

// takeAll fetches every member's new samples.
func (m *MetricsCollector) takeAll() {
	for i := range m.nodes {
		ans, err := m.control(i, "metrics take")
		if err != nil {
			continue
		}
		var ss []MetricSample
		if err := json.Unmarshal([]byte(ans), &ss); err != nil {
			m.markLost(i, "it answered unreadable samples: "+err.Error())
			continue
		}
		m.mu.Lock()
		m.out[i].Samples = append(m.out[i].Samples, ss...)
		m.mu.Unlock()
	}
}

func (m *MetricsCollector) halt() {
	for i := range m.nodes {
		_, _ = m.control(i, "metrics stop")
	}
}

// Stop fetches the last samples, stops every sampler and returns what each
// member recorded, in member order.
func (m *MetricsCollector) Stop() []MemberMetrics {
	close(m.stop)
	<-m.done
	m.halt()
	m.takeAll()
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]MemberMetrics(nil), m.out...)
}
