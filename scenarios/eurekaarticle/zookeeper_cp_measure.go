package eurekaarticle

import (
	"fmt"
	"sort"
	"time"

	"sdchaos/experiment"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/eureka"
	"sdchaos/worlds/zookeeper"
)

// cpOps are the operations the member watch makes, in table order: the
// member's own state, a read and a write on a pinned session, a
// registration on a new session.
var cpOps = []experiment.ProbeOp{zookeeper.ZKMode, experiment.List, zookeeper.ZKWrite, experiment.Register}

// cpMeasure is what a zookeeper-cp run measured; times are offsets from
// the ZooKeeper part's time zero unless said.
type cpMeasure struct {
	data            cpData
	faultAt, healAt time.Duration
	healed          bool
	label           string
	members         []cpMember
	// none is when no member but the victim served (every survivor not
	// serving at once, from their srvr); any when some member did not
	// (the union, the victim included unless it was killed).
	none, any cpSpan
	callers   []cpCaller
	eureka    *cpEureka
}

// cpSpan is a span of the run (ok false: empty).
type cpSpan struct {
	from, to time.Duration
	ok       bool
}

// length returns the span's length (0 when empty).
func (s cpSpan) length() time.Duration {
	if !s.ok {
		return 0
	}
	return s.to - s.from
}

// cpMember is one member: its part in the fault and what it refused.
type cpMember struct {
	name   string
	victim bool
	// refused holds, per operation, what it refused during the fault.
	refused map[experiment.ProbeOp]cpRefusal
}

// cpRefusal is one member's refusals of one operation during the fault:
// how many asks and failures, and the span from the first failed ask to
// the last (plus one period), relative to the fault.
type cpRefusal struct {
	asked, failed int
	span          cpSpan
	// servedUntil is the last ask answered before the first failure
	// (relative to the fault; -1 when the first ask after the fault failed).
	servedUntil time.Duration
}

// cpCaller is one caller's calls during the fault, and its client's states.
type cpCaller struct {
	name             string
	calls, failed    int
	firstFail        time.Duration // relative to the fault; -1: none
	suspended, lost  int
	reconnectedAfter time.Duration // from the first SUSPENDED after the fault to the next RECONNECTED; -1: none
	firstCall        time.Duration // when its first call started (its LoadBalancer cache filled then)
}

// cpEureka is what the real Eureka part measured.
type cpEureka struct {
	h      *history.History
	m      failoverMeasure
	sched  string
	server string // the server killed
	killAt time.Duration
	calls  int
	failed int
}

// measure fills the measurement; false when no fault was recorded.
func (s *zkCP) measure(h *history.History) (cpMeasure, bool, error) {
	var m cpMeasure
	if err := h.DataInto(&m.data); err != nil {
		return m, false, err
	}
	inj, ok := firstInject(h.Events)
	if !ok {
		return m, false, nil
	}
	m.faultAt, m.healAt, m.label = inj.At, h.Timeline, inj.Label
	if e, ok := h.Events.First(inj.Kind, history.Heal); ok {
		m.healAt, m.healed = e.At, true
	}
	for _, name := range m.data.Members {
		cm := cpMember{name: name, victim: name == m.data.Victim, refused: map[experiment.ProbeOp]cpRefusal{}}
		for _, op := range cpOps {
			cm.refused[op] = refusalOf(h.Ops, name, op, m.faultAt, m.healAt, periodOf(op))
		}
		m.members = append(m.members, cm)
	}
	m.none, m.any = s.spans(m)
	for _, name := range cpCallers {
		m.callers = append(m.callers, callerOf(h.Ops, name, m.faultAt, m.healAt))
	}
	if m.data.Eureka != nil {
		e, err := s.eurekaOf(m.data.Eureka, m.healAt-m.faultAt)
		if err != nil {
			return m, false, err
		}
		m.eureka = e
	}
	return m, true, nil
}

// firstInject returns the first fault injected.
func firstInject(es history.Events) (history.Event, bool) {
	for _, e := range es {
		if e.Phase == history.Inject && e.Err == "" {
			return e, true
		}
	}
	return history.Event{}, false
}

// periodOf is how often the member watch asks op.
func periodOf(op experiment.ProbeOp) time.Duration { return cpEvery[op] }

// refusalOf collects member's asks of op scheduled in [from, to).
func refusalOf(ops []history.Op, member string, op experiment.ProbeOp, from, to, period time.Duration) cpRefusal {
	r := cpRefusal{servedUntil: -1}
	var asks []history.Op
	for _, o := range ops {
		if o.Kind == history.OpProbe && o.Via == member && o.Target == string(op) && o.Scheduled >= from && o.Scheduled < to {
			asks = append(asks, o)
		}
	}
	sort.Slice(asks, func(i, j int) bool { return asks[i].Scheduled < asks[j].Scheduled })
	for _, o := range asks {
		r.asked++
		at := o.Scheduled - from
		if o.Outcome == history.OK {
			if r.failed == 0 {
				r.servedUntil = at
			}
			continue
		}
		r.failed++
		if !r.span.ok {
			r.span = cpSpan{from: at, ok: true}
		}
		r.span.to = at + period
	}
	return r
}

// spans returns when no survivor served and when some member did not,
// from their own state (srvr), relative to the fault.
func (s *zkCP) spans(m cpMeasure) (none, any cpSpan) {
	first := true
	for _, cm := range m.members {
		r := cm.refused[zookeeper.ZKMode]
		if cm.victim && s.Fault == cpKillLeader {
			continue // dead, or cut from everyone: its clients left it
		}
		if r.span.ok {
			any = union(any, r.span)
		}
		if cm.victim {
			continue
		}
		if first {
			none, first = r.span, false
			continue
		}
		none = intersect(none, r.span)
	}
	return none, any
}

func union(a, b cpSpan) cpSpan {
	switch {
	case !a.ok:
		return b
	case !b.ok:
		return a
	}
	return cpSpan{from: min(a.from, b.from), to: max(a.to, b.to), ok: true}
}

func intersect(a, b cpSpan) cpSpan {
	if !a.ok || !b.ok {
		return cpSpan{}
	}
	s := cpSpan{from: max(a.from, b.from), to: min(a.to, b.to), ok: true}
	s.ok = s.to > s.from
	return s
}

// callerOf counts a caller's calls scheduled in [from, to) and reads its
// client's states.
func callerOf(ops []history.Op, name string, from, to time.Duration) cpCaller {
	c := cpCaller{name: name, firstFail: -1, reconnectedAfter: -1, firstCall: -1}
	var suspendedAt time.Duration = -1
	for _, o := range ops {
		switch {
		case o.Caller == name && o.Kind == history.OpCall:
			if c.firstCall < 0 || o.Start < c.firstCall {
				c.firstCall = o.Start
			}
			if o.Scheduled < from || o.Scheduled >= to {
				continue
			}
			c.calls++
			if o.Outcome != history.OK {
				c.failed++
				if c.firstFail < 0 || o.Scheduled-from < c.firstFail {
					c.firstFail = o.Scheduled - from
				}
			}
		case o.Caller == name+zookeeper.StateSuffix && o.Target == string(zookeeper.EventConnection) && o.Start >= from && o.Start < to:
			switch zookeeper.ConnState(o.Value) {
			case zookeeper.Suspended:
				c.suspended++
				if suspendedAt < 0 {
					suspendedAt = o.Start
				}
			case zookeeper.Lost:
				c.lost++
			case zookeeper.Reconnected:
				if suspendedAt >= 0 && c.reconnectedAfter < 0 {
					c.reconnectedAfter = o.Start - suspendedAt
				}
			}
		}
	}
	return c
}

// eurekaOf measures the real Eureka part with eureka-failover's judge.
// Its calls are counted over window from the kill (the ZooKeeper fault's
// length), as the ZooKeeper callers' are.
func (s *zkCP) eurekaOf(he *history.History, window time.Duration) (*cpEureka, error) {
	ef := s.eurekaPart()
	m, ok, err := ef.measure(he)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the Eureka part: %w", err)
	case !ok || len(m.scheds) == 0:
		return nil, fmt.Errorf("the Eureka part recorded no kill")
	}
	e := &cpEureka{h: he, m: m, sched: m.scheds[0].name, killAt: m.killAt, server: m.killed}
	if kill, ok := he.Events.First(eureka.EventKillServer, history.Inject); ok && len(kill.Targets) > 0 {
		e.server = kill.Targets[0]
	}
	e.calls, e.failed = report.Count(he.Ops, e.sched, m.killAt, min(m.killAt+window, he.Timeline))
	return e, nil
}
