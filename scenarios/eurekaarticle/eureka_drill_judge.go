package eurekaarticle

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/eureka"
	"sdchaos/worlds/eureka/eurekamodel"
)

// drillEarly is the span after the faults the article's "sporadic failures
// in the first 30 s" refers to; drillWindow the span of the per-window table.
const (
	drillEarly  = 30 * time.Second
	drillWindow = 30 * time.Second
)

// drillMeasure is what a drill measured (model time from the recorder's zero).
type drillMeasure struct {
	data    drillData
	faultAt time.Duration
	killed  string
	dead    []string
	// until is when a scheduler's registry first stopped listing every dead
	// worker (the end of the run if none did): tasks are counted before it.
	until time.Duration
	rows  []drillRow
}

// drillRow is one scheduler's tasks after the faults.
type drillRow struct {
	retries int
	n, fail int
	// early counts the tasks of the first 30 s after the faults, the failed
	// ones, and those retried on another worker (first pick dead).
	early, earlyFail, earlyRetried int
}

// measure fills the measurement; the text says what is missing when the
// run cannot be judged.
func (s *eurekaDrill) measure(h *history.History) (drillMeasure, string) {
	var m drillMeasure
	if err := h.DataInto(&m.data); err != nil {
		return m, err.Error()
	}
	kill, at, ok1 := m.data.eventAt(h, eureka.EventKillServer, history.Inject)
	crash, _, ok2 := m.data.eventAt(h, eureka.EventCrashWorkers, history.Inject)
	_, _, ok3 := m.data.eventAt(h, eureka.EventDelayServers, history.Inject)
	if !ok1 || !ok2 || !ok3 || len(kill.Targets) == 0 || len(crash.Targets) == 0 {
		return m, "the kill, the workers' crash or the latency was not recorded"
	}
	m.faultAt, m.killed, m.dead = at, kill.Targets[0], crash.Targets
	m.until = deadListedUntil(m.data.Fetches, m.dead, m.faultAt, m.data.Duration)
	early := min(m.faultAt+drillEarly, m.until)
	for _, r := range s.Retries {
		row := drillRow{retries: r}
		row.n, row.fail, _ = m.data.tasksIn(h.Ops, retryName(r), m.faultAt, m.until)
		row.early, row.earlyFail, row.earlyRetried = m.data.tasksIn(h.Ops, retryName(r), m.faultAt, early)
		m.rows = append(m.rows, row)
	}
	return m, ""
}

// deadListedUntil is the earliest moment after from a scheduler's registry
// stopped listing every dead worker (end if it never did).
func deadListedUntil(fetches map[string][]eurekamodel.FetchEvent, dead []string, from, end time.Duration) time.Duration {
	until := end
	for _, evs := range fetches {
		for _, ev := range evs {
			if ev.At > from && ev.OK && countListed(ev.IDs, dead) < len(dead) {
				until = min(until, ev.At)
				break
			}
		}
	}
	return until
}

func countListed(ids, want []string) int {
	n := 0
	for _, w := range want {
		if slices.Contains(ids, w) {
			n++
		}
	}
	return n
}

// theory returns the exact success of R retries and the independent-pick
// approximation.
func (s *eurekaDrill) theory(m drillMeasure, r int) (exact, independent float64) {
	k := len(m.dead)
	return eurekamodel.DistinctSuccess(s.eu.Workers, k, r), eurekamodel.IndependentSuccess(float64(k)/float64(s.eu.Workers), r)
}

// Judge turns the recorded run into the result (pure).
func (s *eurekaDrill) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, missing := s.measure(h)
	if missing != "" {
		res.AddCheck(report.Yes("faults injected", "yes", "no").Invalid(missing))
		return res
	}
	s.metrics(res.Metrics, m)
	res.AddTable(s.successTable(m))
	res.AddTable(s.windowTable(h, m))
	res.AddTable(s.serverTable(m))
	for _, row := range m.rows {
		res.AddCheck(s.successChecks(m, row)...)
	}
	res.AddCheck(s.earlyChecks(m)...)
	s.conclude(res, m)
	return res
}

func (s *eurekaDrill) metrics(mt report.Metrics, m drillMeasure) {
	mt["fault_at_s"], mt["dead_listed_s"] = m.faultAt.Seconds(), (m.until - m.faultAt).Seconds()
	for _, row := range m.rows {
		key := fmt.Sprint(row.retries)
		exact, indep := s.theory(m, row.retries)
		mt["success@"+key], mt["theory@"+key], mt["exact@"+key] = 1-share(row.fail, row.n), indep, exact
		mt["tasks@"+key], mt["first30.fail@"+key], mt["first30.retried@"+key] = float64(row.n), float64(row.earlyFail), float64(row.earlyRetried)
	}
}

// successChecks judges one scheduler's success over the whole window, and
// the article's ≥ 99 % for R ≥ 3 when the theory predicts it.
func (s *eurekaDrill) successChecks(m drillMeasure, row drillRow) []report.Check {
	exact, _ := s.theory(m, row.retries)
	key := fmt.Sprint(row.retries)
	lo, hi, ok := report.BinomialBand(exact, row.n, 0.005)
	e := report.Band("success with R = "+key+" (exact theory ± 4σ)", lo, hi, "").Digits(4).
		From(fmt.Sprintf("1 − C(k, R+1)/C(n, R+1) = %s for %d of %d workers dead, over %d tasks (±4σ + 0.005)",
			pctStr(exact), len(m.dead), s.eu.Workers, row.n))
	if row.retries >= 3 {
		e = e.Says(report.Says("with at least 3 retries the job success rate stayed above 99 %"))
	}
	if !ok {
		return []report.Check{e.Invalid("no task while every dead worker was listed")}
	}
	succ := 1 - share(row.fail, row.n)
	cs := []report.Check{e.JudgeText(succ, fmt.Sprintf("%s (%d/%d failed)", pctStr(succ), row.fail, row.n))}
	if row.retries >= 3 && lo >= 0.99 {
		cs = append(cs, report.Band("success with R = "+key+" at least 99 %", 0.99, 1, "").Digits(4).
			From(fmt.Sprintf("the exact theory's band %s–%s lies above 99 %%", pctStr(lo), pctStr(hi))).
			Says(report.SaysRange("with at least 3 retries above 99 %", 0.99, 1)).
			Within(0, "the article's claim is the range itself: any success rate above 99 %").Judge(succ))
	}
	return cs
}

// earlyChecks judge the first 30 s after the faults: the fewest retries
// fail sporadically (the dead workers are picked), the most retries retry
// the tasks whose first pick was dead onto other workers.
func (s *eurekaDrill) earlyChecks(m drillMeasure) []report.Check {
	first, last := m.rows[0], m.rows[0]
	for _, row := range m.rows {
		if row.retries < first.retries {
			first = row
		}
		if row.retries > last.retries {
			last = row
		}
	}
	exact, _ := s.theory(m, first.retries)
	cs := []report.Check{s.earlyShare(fmt.Sprintf("first 30 s after the faults: failed share with R = %d", first.retries),
		1-exact, first.early, first.earlyFail, "C(k, R+1)/C(n, R+1): every try picked a dead worker",
		"sporadic failures in the first 30 s")}
	if last.retries >= 1 {
		k := float64(len(m.dead)) / float64(s.eu.Workers)
		cs = append(cs, s.earlyShare(fmt.Sprintf("first 30 s after the faults: share of R = %d tasks retried on another worker", last.retries),
			k, last.early, last.earlyRetried, "k/n: the first pick is a dead worker", "failures retried onto other workers"))
	}
	return cs
}

// earlyShare judges count/n against the binomial band of p.
func (s *eurekaDrill) earlyShare(name string, p float64, n, count int, basis, claim string) report.Check {
	lo, hi, ok := report.BinomialBand(p, n, 0.005)
	e := report.Band(name, lo, hi, "").Digits(4).From(fmt.Sprintf("%s = %s over %d tasks (±4σ + 0.005)", basis, pctStr(p), n)).
		Says(report.Says(claim))
	if !ok {
		return e.Invalid("no task in the first 30 s after the faults")
	}
	return e.JudgeText(share(count, n), fmt.Sprintf("%s (%d/%d)", pctStr(share(count, n)), count, n))
}

func (s *eurekaDrill) successTable(m drillMeasure) report.Table {
	t := report.Table{Title: fmt.Sprintf("Task success after the faults, %d of %d workers dead (model %.0f–%.0f s)",
		len(m.dead), s.eu.Workers, m.faultAt.Seconds(), m.until.Seconds()),
		Header: []string{"retries R", "tasks", "ok", "failed", "success", "theory 1 − dead^(R+1)", "exact, distinct picks",
			"first 30 s: failed", "first 30 s: retried", "article"}}
	for _, row := range m.rows {
		exact, indep := s.theory(m, row.retries)
		article := "—"
		if row.retries >= 3 {
			article = "≥ 99 %"
		}
		t.Rows = append(t.Rows, []string{retryName(row.retries), fmt.Sprint(row.n), fmt.Sprint(row.n - row.fail), fmt.Sprint(row.fail),
			pctStr(1 - share(row.fail, row.n)), pctStr(indep), pctStr(exact),
			fmt.Sprintf("%d/%d", row.earlyFail, row.early), fmt.Sprintf("%d/%d", row.earlyRetried, row.early), article})
	}
	t.Notes = []string{fmt.Sprintf("tasks counted while every scheduler still listed all %d dead workers; %s", len(m.dead),
		eurekamodel.WallNote(m.data.Clock.Factor, m.data.Duration))}
	return t
}

func (s *eurekaDrill) windowTable(h *history.History, m drillMeasure) report.Table {
	header := []string{"retries R", fmt.Sprintf("before (0–%.0f s)", m.faultAt.Seconds())}
	var edges []time.Duration
	for at := m.faultAt; at < m.data.Duration; at += drillWindow {
		edges = append(edges, at)
		header = append(header, fmt.Sprintf("+%.0f–%.0f s", (at-m.faultAt).Seconds(), (min(at+drillWindow, m.data.Duration)-m.faultAt).Seconds()))
	}
	t := report.Table{Title: "Success per 30 model seconds after the faults", Header: header}
	cell := func(name string, from, to time.Duration) string {
		n, fail, _ := m.data.tasksIn(h.Ops, name, from, to)
		if n == 0 {
			return "—"
		}
		return fmt.Sprintf("%s (%d/%d)", pctStr(1-share(fail, n)), fail, n)
	}
	for _, r := range s.Retries {
		row := []string{retryName(r), cell(retryName(r), 0, m.faultAt)}
		for _, at := range edges {
			row = append(row, cell(retryName(r), at, min(at+drillWindow, m.data.Duration)))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"cells: success % (failed/tasks)"}
	return t
}

func (s *eurekaDrill) serverTable(m drillMeasure) report.Table {
	t := report.Table{Title: "Remaining servers at the end",
		Header: []string{"server", "registry size", "renewsLastMin / threshold", "eviction", "replication batches delivered / timed out"}}
	for _, name := range sortedNames(m.data.Servers) {
		st := m.data.Servers[name]
		state := "runs"
		if !st.ExpirationEnabled {
			state = "refused (self-preservation)"
		}
		sent, timeouts := 0, 0
		for _, p := range st.Peers {
			sent += p.Batches
			timeouts += p.Timeouts
		}
		t.Rows = append(t.Rows, []string{name, fmt.Sprint(st.Size), fmt.Sprintf("%d / %d", st.RenewsLastMin, st.Threshold), state,
			fmt.Sprintf("%d / %d", sent, timeouts)})
	}
	t.Notes = []string{fmt.Sprintf("%s was killed; the others had +%s on every request, against a %s peer timeout", m.killed, s.Latency, s.eu.PeerTimeout)}
	return t
}

func (s *eurekaDrill) conclude(res *report.Result, m drillMeasure) {
	for _, row := range m.rows {
		exact, indep := s.theory(m, row.retries)
		res.Conclude(fmt.Sprintf("With %d retries %s of the tasks succeeded (theory %s, exact for distinct picks %s); in the first 30 s %d of %d failed and %d were retried on another worker.",
			row.retries, pctStr(1-share(row.fail, row.n)), pctStr(indep), pctStr(exact), row.earlyFail, row.early, row.earlyRetried))
	}
	if m.until < m.data.Duration {
		res.Conclude(fmt.Sprintf("A scheduler's registry dropped a dead worker %.0f s after the faults; later tasks were not counted.", (m.until - m.faultAt).Seconds()))
	} else {
		res.Conclude(fmt.Sprintf("The dead workers stayed in every scheduler's registry for the whole %.0f s after the faults, so failures did not stop by themselves after the first 30 s: retries on other workers are what kept tasks succeeding.",
			(m.data.Duration - m.faultAt).Seconds()))
	}
	s.concludeServers(res, m)
}

func (s *eurekaDrill) concludeServers(res *report.Result, m drillMeasure) {
	var refused, running []string
	timeouts := 0
	for _, name := range sortedNames(m.data.Servers) {
		st := m.data.Servers[name]
		desc := fmt.Sprintf("%s %d/%d", name, st.RenewsLastMin, st.Threshold)
		if st.ExpirationEnabled {
			running = append(running, desc)
		} else {
			refused = append(refused, desc)
		}
		for _, p := range st.Peers {
			timeouts += p.Timeouts
		}
	}
	if len(refused) > 0 {
		res.Conclude(fmt.Sprintf("Self-preservation was engaged on %s (renewsLastMin/threshold): the renewals of the %d live workers fell to the threshold, so nothing is evicted.",
			strings.Join(refused, ", "), s.eu.Workers-len(m.dead)))
	}
	if len(running) > 0 {
		res.Conclude(fmt.Sprintf("Self-preservation was not engaged on %s (renewsLastMin/threshold), although only %d of %d workers renew: %d replication batches timed out (+%s latency against a %s peer timeout) and were sent again, and the peer applied every copy, counting each heartbeat several times.",
			strings.Join(running, ", "), s.eu.Workers-len(m.dead), s.eu.Workers, timeouts, s.Latency, s.eu.PeerTimeout))
	}
}
