package nacosarticle

import (
	"fmt"
	"math"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/rig"
)

// realBackoff is the harness's etcd clients' reconnect back-off cap
// (etcdcli): a connection the blackhole held is retried within it.
const realBackoff = time.Second

// realRecovery is the measurement of one restarted real client. A call
// may wait up to --call-timeout for the channel to get an address (longer
// when it is stuck behind the resolver's build), so the calls scheduled
// in the last --call-timeout before the heal may succeed right after it:
// the share counts the calls scheduled before that, the recovery is timed
// by the first success's completion.
type realRecovery struct {
	n, failUntilBack int
	recovered        bool
	firstOKDelay     time.Duration // completion of the first success, from the heal
	overrun          time.Duration // longest time a failed call ended after its deadline
}

func measureReal(h *history.History, name string, back, callTimeout time.Duration) realRecovery {
	var r realRecovery
	for _, op := range history.Filter(h.Ops, name) {
		if op.Scheduled < back-callTimeout {
			r.n++
			if op.Outcome != history.OK {
				r.failUntilBack++
				r.overrun = max(r.overrun, op.End-op.Start-callTimeout)
			}
		}
		if op.Outcome == history.OK && (!r.recovered || op.End-back < r.firstOKDelay) {
			r.recovered, r.firstOKDelay = true, op.End-back
		}
	}
	return r
}

// realChecks judge the restarted real clients: etcd's naming resolver
// reads the endpoints once when it is built (a serializable Get without a
// deadline), so a client built while the registry is unreachable has no
// address until that read is answered: it fails every call until the
// registry is back, as nosnap, then serves.
func (s *snapshotAtStart) realChecks(h *history.History, back time.Duration) []report.Check {
	var cs []report.Check
	hi := realBackoff + rig.SchedSlack
	for _, name := range s.realNames() {
		r := measureReal(h, name, back, s.Call.CallTimeout)
		share := report.Band(name+": failed share of the calls due to end before the registry is back", 100, 100, " %").
			From("the resolver's first read of the endpoints waits for the registry: no address, every call fails: as nosnap").
			Says(report.Says("— (the article ran no real client)"))
		first := report.Band(name+": first success ends after the registry is back", 0, hi.Seconds(), " s").Digits(3).
			From("the held read is answered at the heal (a new connection within the 1 s reconnect back-off, + 50 ms); a call waiting for an address completes then").
			Says(report.Says("— (the article ran no real client)"))
		if r.n == 0 {
			cs = append(cs, share.Invalid("no call of the real client was due to end before the registry was back"))
			continue
		}
		cs = append(cs, share.JudgeText(report.Pct(r.failUntilBack, r.n), fmt.Sprintf("%d of %d", r.failUntilBack, r.n)))
		if !r.recovered {
			cs = append(cs, first.JudgeText(math.NaN(), "never succeeded"))
			continue
		}
		cs = append(cs, first.Judge(r.firstOKDelay.Seconds()))
	}
	return cs
}

// realRows are the table rows of the restarted real clients.
func (s *snapshotAtStart) realRows() []report.Row { return s.Real.Rows("real client restarted") }

// realNames lists the real clients that ran.
func (s *snapshotAtStart) realNames() []string { return s.Real.Names() }

// concludeReal says which caller each real client behaved as, and how long
// its calls overran their deadline while the resolver was being built.
func (s *snapshotAtStart) concludeReal(res *report.Result, h *history.History, series map[string]report.Series, back time.Duration) {
	for _, name := range s.realNames() {
		best, same, total := report.Resembles(series, name, []string{callerNoSnap, callerSnap})
		ok, fail := series[name].Total()
		r := measureReal(h, name, back, s.Call.CallTimeout)
		res.Metrics[name+".overrun_s"] = r.overrun.Seconds()
		res.Conclude(fmt.Sprintf("The restarted real client %s served %d and failed %d: it behaved as %s in %d of %d seconds.",
			name, ok, fail, best, same, total))
		if r.overrun > rig.SchedSlack {
			res.Conclude(fmt.Sprintf("Its failed calls ended up to %.2f s after their %s deadline: the first call builds etcd's naming resolver, whose first read of the endpoints has no deadline, and the calls wait behind it until the registry answers.",
				r.overrun.Seconds(), s.Call.CallTimeout))
		}
	}
}
