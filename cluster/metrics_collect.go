package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"sdchaos/childproc"
	"sdchaos/procstat"
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
// second, stopped once, its last samples taken, closed. An error from start
// or take says why the member counts as lost.
type memberSource interface {
	start(interval time.Duration) error
	take() ([]MetricSample, error)
	stop()
	close()
}

// MetricsCollector samples every member's metrics and gathers the samples
// once a second, so a member that dies loses at most the last second.
type MetricsCollector struct {
	srcs []memberSource
	mu   sync.Mutex
	out  []MemberMetrics
	stop chan struct{}
	done chan struct{}
	// readers is what the metrics readers (processes of the harness) spent.
	readers ReadersCost
}

// ReadersCost is what a collector's metrics readers spent: CPU time, and
// the sum of their peak resident sizes.
type ReadersCost struct {
	N       int
	CPU     time.Duration
	PeakRSS int64
}

// takeEvery is how often the collector fetches samples; takeTimeout bounds
// one fetch (a member too starved to answer in it counts as lost).
const (
	takeEvery   = time.Second
	takeTimeout = 10 * time.Second
)

// CollectMetrics starts sampling every member every interval, as how says;
// a member read over HTTP is read by a metrics reader, a process of the
// harness started for it through the cluster's supervisor.
func (c *Cluster) CollectMetrics(interval time.Duration, how Sampling) (*MetricsCollector, error) {
	m := &MetricsCollector{out: make([]MemberMetrics, len(c.nodes)), stop: make(chan struct{}), done: make(chan struct{})}
	for i, n := range c.nodes {
		m.out[i].Name = n.Name
		var src memberSource = &controlSource{child: n.Child}
		if n.ext != nil || how == SampleHTTP {
			src = &readerSource{c: c, n: n, cost: &m.readers, mu: &m.mu}
		}
		if err := src.start(interval); err != nil {
			src.stop()
			src.close()
			m.halt()
			m.closeAll()
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

func (m *MetricsCollector) closeAll() {
	for _, src := range m.srcs {
		src.close()
	}
}

// Readers returns what the metrics readers spent (after Stop).
func (m *MetricsCollector) Readers() ReadersCost {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.readers
}

// Stop fetches the last samples, stops every sampler and returns what each
// member recorded, in member order.
func (m *MetricsCollector) Stop() []MemberMetrics {
	close(m.stop)
	<-m.done
	m.halt()
	m.takeAll()
	m.closeAll()
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]MemberMetrics(nil), m.out...)
}

// controlSource has a process sample a member's registry (see sampler)
// over the process's control channel: the member's own process, or its
// metrics reader.
type controlSource struct{ child func() *childproc.Child }

func (s *controlSource) start(interval time.Duration) error {
	_, err := s.control(fmt.Sprintf("metrics start %d", interval.Milliseconds()))
	return err
}

// control sends cmd to the process; the error says why the member counts as lost.
func (s *controlSource) control(cmd string) (string, error) {
	ch := s.child()
	if ch == nil || ch.Exited() {
		return "", fmt.Errorf("its process exited")
	}
	ans, err := ch.Control(cmd, takeTimeout)
	var answered *childproc.AnswerError
	switch {
	case err == nil:
		return ans, nil
	case ch.Exited():
		return "", fmt.Errorf("its process exited")
	case errors.As(err, &answered):
		return "", errors.New(answered.Text) // a reader: what the member's endpoint did
	}
	return "", fmt.Errorf("it stopped answering its control channel")
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

func (s *controlSource) close() {}

// readerSource reads a member's /metrics through a metrics reader process
// (see readerCommand), started at start and killed at close, its CPU time
// and peak RSS added to the collector's.
type readerSource struct {
	controlSource
	c    *Cluster
	n    *Node
	ch   *childproc.Child
	mu   *sync.Mutex
	cost *ReadersCost
}

func (s *readerSource) start(interval time.Duration) error {
	if s.c.sup == nil {
		return fmt.Errorf("no supervisor to start the metrics reader of etcd %s with", s.n.Name)
	}
	a := s.c.readerTLS
	a.url = s.n.MetricsURL()
	ch, err := s.c.sup.Start(childproc.Spec{Name: "metrics reader of etcd " + s.n.Name, Command: readerCommand,
		Args: a.argv(), LogPath: os.DevNull, Control: true})
	if err != nil {
		return err
	}
	s.ch, s.child = ch, func() *childproc.Child { return ch }
	return s.controlSource.start(interval)
}

func (s *readerSource) stop() {
	if s.ch != nil {
		s.controlSource.stop()
	}
}

// close kills the reader, once its last samples were taken.
func (s *readerSource) close() {
	if s.ch == nil {
		return
	}
	st, err := procstat.Read(s.ch.Pid())
	rss, _ := procstat.PeakRSS(strconv.Itoa(s.ch.Pid()))
	s.ch.Kill()
	if err == nil {
		s.mu.Lock()
		s.cost.N++
		s.cost.CPU += st.CPU
		s.cost.PeakRSS += rss
		s.mu.Unlock()
	}
	s.ch = nil
}
