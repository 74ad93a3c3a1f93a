package eurekaarticle

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/eureka"
	"sdchaos/worlds/eureka/eurekamodel"
)

// failoverWindow is the span of the "scheduling never stops" windows.
const failoverWindow = 10 * time.Second

// failoverMeasure is what a failover run measured (model time from the
// recorder's zero).
type failoverMeasure struct {
	data   failoverData
	killAt time.Duration
	killed string // URL of the killed server
	scheds []schedMeasure
	// failedTasks and tasks count every scheduler's tasks; lost is the most
	// workers missing from a scheduler's registry after the kill.
	failedTasks, tasks, lost int
	// windows are the whole windows after the kill; emptyWindow names the
	// first without a successful task ("" if none).
	windows     int
	emptyWindow string
}

// schedMeasure is what one scheduler went through after the kill.
type schedMeasure struct {
	name        string
	fetch       time.Duration
	stuck       bool // its fetches went to the killed server before the kill
	switched    bool
	switchAfter time.Duration
	to          string
	failed      int // failed fetch attempts after the kill
	wantFailed  int // what RetryableEurekaHttpClient makes
	minListed   int // fewest workers listed by a successful fetch after the kill (-1: none)
	ok, fail    int
}

// measure fills the measurement; false when the run recorded no kill.
func (s *eurekaFailover) measure(h *history.History) (failoverMeasure, bool, error) {
	var m failoverMeasure
	if err := h.DataInto(&m.data); err != nil {
		return m, false, err
	}
	kill, at, ok := m.data.eventAt(h, eureka.EventKillServer, history.Inject)
	if !ok || len(kill.Targets) == 0 {
		return m, false, nil
	}
	m.killAt, m.killed = at, m.data.Servers[kill.Targets[0]]
	for _, sd := range m.data.Schedulers {
		sm := switchOf(sd, m.killAt, m.killed)
		sm.ok, sm.fail = countTasks(h.Ops, sd.Name)
		m.failedTasks += sm.fail
		m.tasks += sm.ok + sm.fail
		if sm.minListed < 0 {
			m.lost = s.eu.Workers
		} else {
			m.lost = max(m.lost, s.eu.Workers-sm.minListed)
		}
		m.scheds = append(m.scheds, sm)
	}
	m.windows, m.emptyWindow = s.emptyWindows(h, m)
	return m, true, nil
}

// switchOf follows one scheduler's fetches around the kill.
func switchOf(sd schedulerData, killAt time.Duration, killed string) schedMeasure {
	o := schedMeasure{name: sd.Name, fetch: sd.Fetch, minListed: -1}
	for _, ev := range sd.Fetches {
		if ev.At < killAt {
			if ev.OK {
				o.stuck = ev.Attempts[len(ev.Attempts)-1].Server == killed
			}
			continue
		}
		for _, a := range ev.Attempts {
			if !a.OK(eurekamodel.ReqFetch) {
				o.failed++
			}
		}
		if !ev.OK {
			continue
		}
		if !o.switched {
			o.switched, o.switchAfter, o.to = true, ev.At-killAt, ev.Attempts[len(ev.Attempts)-1].Server
		}
		if o.minListed < 0 || len(ev.IDs) < o.minListed {
			o.minListed = len(ev.IDs)
		}
	}
	o.wantFailed = wantFailedAttempts(o.stuck, sd.Order, killed)
	return o
}

// wantFailedAttempts is what RetryableEurekaHttpClient.execute makes after
// the sticky server died: it fails once and is only dropped (not
// quarantined); getHostCandidates, with nothing quarantined, returns the
// configured list, so the dead server is tried again if it is first, fails
// and is quarantined; the next server answers.
func wantFailedAttempts(stuck bool, order []string, killed string) int {
	switch {
	case !stuck:
		return 0
	case len(order) > 0 && order[0] == killed:
		return 2
	}
	return 1
}

// countTasks counts a scheduler's successful and failed tasks.
func countTasks(ops []history.Op, name string) (ok, fail int) {
	for _, op := range history.Filter(ops, name) {
		if op.Outcome == history.OK {
			ok++
		} else {
			fail++
		}
	}
	return ok, fail
}

// emptyWindows counts the whole windows after the kill and names the
// first without a successful task of some scheduler.
func (s *eurekaFailover) emptyWindows(h *history.History, m failoverMeasure) (int, string) {
	n := int(m.data.Duration / failoverWindow)
	first := int(m.killAt / failoverWindow)
	empty := ""
	for _, sd := range m.data.Schedulers {
		ok, _ := m.data.okPerWindow(h.Ops, sd.Name, failoverWindow, n)
		for i := first; i < n && empty == ""; i++ {
			if ok[i] == 0 {
				empty = fmt.Sprintf("%s: none in %d–%d s", sd.Name, i*10, (i+1)*10)
			}
		}
	}
	return max(n-first, 0), empty
}

// Judge turns the recorded run into the result (pure).
func (s *eurekaFailover) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, ok, err := s.measure(h)
	killed := report.Yes("schedulers' server killed", "yes", "no")
	switch {
	case err != nil:
		res.AddCheck(killed.Invalid(err.Error()))
		return res
	case !ok:
		res.AddCheck(killed.Invalid("no kill of a Eureka server was recorded"))
		return res
	}
	s.metrics(res.Metrics, m)
	res.AddTable(s.switchTable(m))
	res.AddTable(s.windowTable(h, m))
	for _, sm := range m.scheds {
		res.AddCheck(s.schedChecks(sm)...)
	}
	res.AddCheck(s.runChecks(m)...)
	s.conclude(res, m)
	return res
}

// fetchKey is the metric suffix of a fetch interval: "@15" for 15 s.
func fetchKey(d time.Duration) string { return "@" + report.Num(d.Seconds()) }

func (s *eurekaFailover) metrics(mt report.Metrics, m failoverMeasure) {
	mt["kill_at_s"] = m.killAt.Seconds()
	for _, sm := range m.scheds {
		sw := math.NaN()
		if sm.switched {
			sw = sm.switchAfter.Seconds()
		}
		mt["switch_s"+fetchKey(sm.fetch)], mt["failed_attempts"+fetchKey(sm.fetch)] = sw, float64(sm.failed)
	}
	mt["tasks.fail"], mt["workers_lost"] = float64(m.failedTasks), float64(m.lost)
}

func (s *eurekaFailover) schedChecks(sm schedMeasure) []report.Check {
	sw := report.Band("switch after the kill ("+sm.name+")", 0, (sm.fetch+time.Second).Seconds(), " s").Digits(1).
		From("next fetch tick (≤ --fetch) + 1 s: the dead server refuses at once and RetryableEurekaHttpClient tries the next server in the same request").
		Says(report.SaysRange("switches in about 15–30 s", 15, 30)).
		Within(1, "the article's 'about 15–30 s', read as ± 1 s: the time one fetch may take to try the next server").
		Spread("the switch lands anywhere within one fetch interval after the kill (the fetch timer's phase, moved by --seed); " +
			"the article's figure is one of the outcomes the rule allows").
		Because("the client switches at its next fetch tick (≤ " + eurekamodel.FormatModel(sm.fetch) + "); the article's 15–30 s fits a client " +
			"with the default 30 s registryFetchIntervalSeconds, or one that waits out a connect timeout on a server that drops packets")
	attempts := report.Exactly("failed fetch attempts ("+sm.name+")", float64(sm.wantFailed), "").
		From("RetryableEurekaHttpClient: the sticky server fails and is dropped, not quarantined; the candidate list tries it again " +
			"if it is first (then quarantines it); the next server answers").
		Says(report.Says("switches to a live server"))
	cs := []report.Check{attempts.Judge(float64(sm.failed))}
	if !sm.switched {
		return append(cs, sw.JudgeText(math.NaN(), "never"))
	}
	return append(cs, sw.Judge(sm.switchAfter.Seconds()))
}

func (s *eurekaFailover) runChecks(m failoverMeasure) []report.Check {
	failed := report.Exactly("failed tasks", 0, "").From("a failed fetch keeps the cached registry; every listed worker is alive").
		Says(report.Says("never stops scheduling"))
	never := report.Yes("every 10 model seconds after the kill had successful tasks", "yes", "no").
		From("the cached registry keeps serving while the client fails over").Says(report.SaysYes("never stops scheduling"))
	lost := report.Exactly("workers lost from the schedulers' registries", 0, "").
		From("the surviving servers hold every lease (replicated); a failed fetch keeps the old registry").
		Says(report.SaysValue("no worker lost", 0)).SameCount()
	cs := []report.Check{lost.Judge(float64(m.lost))}
	if m.tasks == 0 {
		return append(cs, failed.Invalid("no task was sent"), never.Invalid("no task was sent"))
	}
	cs = append(cs, failed.Judge(float64(m.failedTasks)))
	if m.windows == 0 {
		return append(cs, never.Invalid("no whole 10 s window after the kill"))
	}
	text := fmt.Sprintf("yes (%d windows)", m.windows)
	if m.emptyWindow != "" {
		text = "no: " + m.emptyWindow
	}
	return append(cs, never.JudgeText(report.B2F(m.emptyWindow == ""), text))
}

func (s *eurekaFailover) switchTable(m failoverMeasure) report.Table {
	t := report.Table{Title: "Failover after kill -9 of the schedulers' server (model time)",
		Header: []string{"scheduler", "switched to", "switch after the kill", "band", "failed attempts", "tasks ok/fail", "fewest workers listed", "article"}}
	for _, sm := range m.scheds {
		sw := math.NaN()
		if sm.switched {
			sw = sm.switchAfter.Seconds()
		}
		t.Rows = append(t.Rows, []string{sm.name, hostOf(sm.to), secStr(sw), fmt.Sprintf("next fetch tick + 1 s: 0–%s", eurekamodel.FormatModel(sm.fetch+time.Second)),
			fmt.Sprintf("%d (source: %d)", sm.failed, sm.wantFailed), fmt.Sprintf("%d/%d", sm.ok, sm.fail),
			fmt.Sprintf("%d of %d", max(sm.minListed, 0), s.eu.Workers), "switch in about 15–30 s"})
	}
	t.Notes = []string{fmt.Sprintf("killed %s at %s; %s", hostOf(m.killed), eurekamodel.FormatModel(m.killAt), eurekamodel.WallNote(m.data.Clock.Factor, m.data.Duration)),
		fmt.Sprintf("registry size on the surviving servers at the end: %s (of %d workers)", fmtSizes(m.data.FinalSizes), s.eu.Workers)}
	return t
}

func fmtSizes(sizes map[string]int) string {
	names := make([]string, 0, len(sizes))
	for n := range sizes {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, sizes[n])
	}
	return strings.Join(parts, ", ")
}

func (s *eurekaFailover) windowTable(h *history.History, m failoverMeasure) report.Table {
	n := int(math.Ceil(float64(m.data.Duration) / float64(failoverWindow)))
	header := []string{"scheduler"}
	for i := range n {
		col := fmt.Sprintf("%d–%ds", i*10, (i+1)*10)
		if int(m.killAt/failoverWindow) == i {
			col += "*"
		}
		header = append(header, col)
	}
	t := report.Table{Title: "Tasks ok/fail per 10 model seconds", Header: header}
	for _, sd := range m.data.Schedulers {
		ok, fail := m.data.okPerWindow(h.Ops, sd.Name, failoverWindow, n)
		row := []string{sd.Name}
		for i := range n {
			row = append(row, fmt.Sprintf("%d/%d", ok[i], fail[i]))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{fmt.Sprintf("* kill -9 of %s at %.1f s; tasks are paced in real time (%g/s), so a model window holds %g/s × 10/%g",
		hostOf(m.killed), m.killAt.Seconds(), s.Rate, s.Rate, m.data.Clock.Factor)}
	return t
}

func (s *eurekaFailover) conclude(res *report.Result, m failoverMeasure) {
	for _, sm := range m.scheds {
		if !sm.switched {
			res.Conclude(fmt.Sprintf("The scheduler fetching every %s never fetched successfully after the kill.", eurekamodel.FormatModel(sm.fetch)))
			continue
		}
		res.Conclude(fmt.Sprintf("Fetching every %s, the scheduler switched %.1f s after the kill (its next fetch tick; at most %s), after %d failed attempts on the dead server (the source's rule gives %d).",
			eurekamodel.FormatModel(sm.fetch), sm.switchAfter.Seconds(), eurekamodel.FormatModel(sm.fetch), sm.failed, sm.wantFailed))
	}
	res.Conclude(fmt.Sprintf("Meanwhile %d of %d tasks failed and %d workers went missing: the cached registry kept scheduling going while the client found a live server.",
		m.failedTasks, m.tasks, m.lost))
	res.Conclude("The article's 15–30 s is what a client fetching every 30 s (Eureka's default) sees, or one that waits out a connect timeout on a server that drops packets; a refused connection fails over within the same fetch, so a 15 s fetch switches within 15 s.")
}
