package nacosarticle

import (
	"fmt"
	"time"

	"sdchaos/report"
)

// Under a partial loss (--loss below 1, --net private) the registry is
// reachable but lossy: a refresh or a renewal succeeds when its packets
// (and TCP's retransmissions of the lost ones) arrive before its deadline.
// The rules then still predict what does not depend on which calls got
// through — the callers' calls to the instances never cross the lossy
// links, so a policy that never empties its list fails nothing; every
// caller is all ok again in the last second — but not how often naive's
// refreshes fail (that depends on TCP's retransmission timers racing
// --refresh-timeout, and on gRPC's keepalive closing a connection that lost
// its pings), nor which leases expire (some renewals get through). Those
// numbers are reported beside the other loss levels, not judged.

// reconnectAllowance bounds how long after the heal of a packet drop a
// client's first call may wait for a working connection: gRPC's keepalive
// (2 s without an answer, then 2 s for the ping's ack; etcdcli) closes a
// connection stuck in the loss and the client redials within its 1 s
// back-off, and a dial in progress resends its SYN within 2 s (Linux's
// initial 1 s SYN timeout, doubled).
const reconnectAllowance = 5 * time.Second

// lossy reports whether the jitter drops only a share of the packets.
func (s *registryJitter) lossy() bool { return s.Loss < 1 }

// unpredicted reports whether a partial loss let leases expire: keep's and
// the real clients' lists may then shrink or empty at any point of the
// jitter, when a refresh or the watch gets through, so their failures are
// reported, not judged.
func (s *registryJitter) unpredicted(m jitterMeasure) bool {
	return s.lossy() && m.reregistered > 0
}

// lostWhat says what the clients lost during the jitter.
func (s *registryJitter) lostWhat(m jitterMeasure) string {
	if m.packets {
		return fmt.Sprintf("%g %% of their packets to and from the registry", 100*s.Loss)
	}
	return "the registry"
}

// lossTable gives each policy's failures during and after a partial loss.
func (s *registryJitter) lossTable(m jitterMeasure) report.Table {
	t := report.Table{
		Title: fmt.Sprintf("Failures per policy under %g %% packet loss (s%d–s%d): reported and compared across loss levels, judged only where the rules predict them",
			100*s.Loss, m.start.Second(), m.end.Second()),
		Header: []string{"caller", "requests during", "failed during", "share", "failed after"},
	}
	for _, n := range append(jitterNames(), s.realNames()...) {
		t.Rows = append(t.Rows, []string{n, fmt.Sprint(m.nDuring[n]), fmt.Sprint(m.failDuring[n]),
			report.PctText(m.failDuring[n], m.nDuring[n]), fmt.Sprint(m.failAfter[n])})
	}
	t.Notes = append(t.Notes, "naive's share is not predicted: it depends on which refreshes get through, TCP's retransmissions racing --refresh-timeout")
	return t
}

// concludeLoss says what a partial loss did to naive, and what was left unjudged.
func (s *registryJitter) concludeLoss(res *report.Result, m jitterMeasure) {
	if !s.lossy() {
		return
	}
	first := "never failed"
	if m.naiveFailed {
		first = fmt.Sprintf("first failed %.2f s after the loss began", m.naiveFirst.Seconds())
	}
	res.Conclude(fmt.Sprintf("Under %g %% loss naive %s and failed %d of %d requests during the jitter (%s; at a loss of 1 it fails every one after its first failed refresh): some refreshes got through, each failed one emptied its list until the next.",
		100*s.Loss, first, m.failDuring["naive"], m.nDuring["naive"], report.PctText(m.failDuring["naive"], m.nDuring["naive"])))
	if s.unpredicted(m) {
		res.Conclude(fmt.Sprintf("%d instance(s) registered again during the partial loss: keep's and the real clients' lists could shrink whenever a refresh or the watch got through, so their failures are reported, not judged.",
			m.reregistered))
	}
}
