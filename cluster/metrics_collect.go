package cluster

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// MemberMetrics is what one member's sampler recorded.
type MemberMetrics struct {
	Name    string         `json:"name"`
	Samples []MetricSample `json:"samples"`
	// Lost says why the samples end early: the member process exited or
	// stopped answering (its control channel, or its metrics endpoint); ""
	// when neither happened.
	Lost string `json:"lost,omitempty"`
}

// Sampling says how a member's metrics are read.
type Sampling int

const (
	// SampleAuto has a member the harness started sample its own
	// Prometheus registry inside its process, and reads the metrics
	// endpoint of a member it did not start over HTTP.
	SampleAuto Sampling = iota
	// SampleHTTP reads every member's metrics endpoint over HTTP, as from
	// outside (to compare with the members' own samples).
	SampleHTTP
)

// memberSource samples one member: started once, its samples taken once a
// second, stopped once. An error from start or take says why the member
// counts as lost.
type memberSource interface {
	start(interval time.Duration) error
	take() ([]MetricSample, error)
	stop()
}

// MetricsCollector samples every member's metrics and gathers the samples
// once a second, so a member that dies loses at most the last second.
type MetricsCollector struct {
	srcs []memberSource
	mu   sync.Mutex
	out  []MemberMetrics
	stop chan struct{}
	done chan struct{}
}

// takeEvery is how often the collector fetches samples; takeTimeout bounds
// one fetch (a member too starved to answer in it counts as lost).
const (
	takeEvery   = time.Second
	takeTimeout = 10 * time.Second
)

// CollectMetrics starts sampling every member every interval, as how says.
func (c *Cluster) CollectMetrics(interval time.Duration, how Sampling) (*MetricsCollector, error) {
	m := &MetricsCollector{out: make([]MemberMetrics, len(c.nodes)), stop: make(chan struct{}), done: make(chan struct{})}
	for i, n := range c.nodes {
		m.out[i].Name = n.Name
		var src memberSource = &controlSource{n: n}
		if n.ext != nil || how == SampleHTTP {
			src = newScrapeSource(n)
		}
		if err := src.start(interval); err != nil {
			src.stop()
			m.halt()
			return nil, fmt.Errorf("starting the metrics sampler of etcd %s: %w", n.Name, err)
		}
		m.srcs = append(m.srcs, src)
	}
	go m.loop()
	return m, nil
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
	for i, src := range m.srcs {
		m.mu.Lock()
		lost := m.out[i].Lost != ""
		m.mu.Unlock()
		if lost {
			continue
		}
		ss, err := src.take()
		m.mu.Lock()
		m.out[i].Samples = append(m.out[i].Samples, ss...)
		m.mu.Unlock()
		if err != nil {
			m.markLost(i, err.Error())
		}
	}
}

func (m *MetricsCollector) halt() {
	for _, src := range m.srcs {
		src.stop()
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

// controlSource has a member the harness started sample its own registry
// inside its process (see sampler), over the member's control channel.
type controlSource struct{ n *Node }

func (s *controlSource) start(interval time.Duration) error {
	_, err := s.control(fmt.Sprintf("metrics start %d", interval.Milliseconds()))
	return err
}

// control sends cmd to the member; the error says why it counts as lost.
func (s *controlSource) control(cmd string) (string, error) {
	ch := s.n.Child()
	if ch == nil || ch.Exited() {
		return "", fmt.Errorf("its process exited")
	}
	ans, err := ch.Control(cmd, takeTimeout)
	if err != nil {
		if ch.Exited() {
			return "", fmt.Errorf("its process exited")
		}
		return "", fmt.Errorf("it stopped answering its control channel")
	}
	return ans, nil
}

func (s *controlSource) take() ([]MetricSample, error) {
	ans, err := s.control("metrics take")
	if err != nil {
		return nil, err
	}
	var ss []MetricSample
	if err := json.Unmarshal([]byte(ans), &ss); err != nil {
		return nil, fmt.Errorf("it answered unreadable samples: %v", err)
	}
	return ss, nil
}

func (s *controlSource) stop() { _, _ = s.control("metrics stop") }
