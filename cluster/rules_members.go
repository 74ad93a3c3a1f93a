package cluster

import (
	"fmt"
	"time"

	"sdchaos/experiment"
)

// ElectionBound is how long a majority may take to elect a leader with
// an election timeout of electionMs: PreVote, then a randomized timeout in
// [election, 2 × election), + 1 s for a restart.
func ElectionBound(electionMs uint) time.Duration {
	return 2*time.Duration(electionMs)*time.Millisecond + time.Second
}

// MemberServes is etcd's answer to the members probe, the same for every
// world built on etcd: a member alone (the survivor of a quorum loss, a
// member cut off its peers) serves neither a linearizable read nor a
// write; the two members left with each other serve both once they have
// elected (since is how long after the fault the probe asked); a quorum
// loss has no majority side.
func MemberServes(f experiment.FaultKind, role experiment.Role, since time.Duration, electionMs uint) (experiment.Band, bool) {
	switch {
	case role == experiment.CutOff || role == experiment.Survivor:
		return experiment.Band{Lo: 0, Hi: 0, Basis: "a linearizable read (ReadIndex) and a write both need a quorum: the member alone has none"}, true
	case f == experiment.QuorumLoss:
		return experiment.Band{}, false
	}
	basis := fmt.Sprintf("2 of 3 members are a quorum: a leader within 2 × %d ms election timeout + 1 s of the cut", electionMs)
	if since >= ElectionBound(electionMs) {
		return experiment.Band{Lo: 1, Hi: 1, Basis: basis}, true
	}
	return experiment.Band{Lo: 0, Hi: 1, Basis: basis + "; the probe came sooner"}, true
}
