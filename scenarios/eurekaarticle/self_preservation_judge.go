package eurekaarticle

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/eureka"
	"sdchaos/worlds/eureka/eurekamodel"
)

// spMeasure is what a self-preservation run measured (model time from the
// recorder's zero).
type spMeasure struct {
	data                     spData
	partAt, partEnd, deathAt time.Duration
	dead                     string
	// engaged is when each "on" server first refused to evict after the
	// partition; engagedAll whether all did, worst the latest of them.
	engaged    map[string]time.Duration
	engagedAll bool
	worst      time.Duration
	onEvicted  int // most evictions on one "on" server during the partition
	// evictLo and evictHi bound onEvicted by the source's rules over each
	// server's recorded eviction runs: runs between the partitioned leases'
	// expiry and the server's engagement evict up to the cap (none when
	// protection engages before any lease expires, as at Eureka's defaults).
	evictLo, evictHi int
	// offEvicted is the fewest evictions on one "off" server during the
	// partition; emptied whether every "off" registry became empty during
	// it, and lastEmpty when the last did.
	offEvicted int
	emptied    bool
	lastEmpty  time.Duration
	capOK      bool
	// gone is when r0's registry stopped listing the dead worker (goneOK false: never).
	gone   time.Duration
	goneOK bool
	// r0 and r3's tasks: r0's while the dead worker was listed, r3's all.
	r0Tasks, r0Fail, r3Tasks, r3Fail int
	// r3EmptyLo and r3EmptyHi bound r3's tasks sent while its discovery
	// client held no instance (surely, and within a fetch's edge).
	r3EmptyLo, r3EmptyHi int
}

// measure fills the measurement; the text says what is missing when the
// run cannot be judged.
func (s *selfPreservation) measure(h *history.History) (spMeasure, string) {
	var m spMeasure
	if err := h.DataInto(&m.data); err != nil {
		return m, err.Error()
	}
	var ok1, ok2, ok3 bool
	_, m.partAt, ok1 = m.data.eventAt(h, eureka.EventPartitionClients, history.Inject)
	_, m.partEnd, ok2 = m.data.eventAt(h, eureka.EventPartitionClients, history.Heal)
	death, deathAt, ok3 := m.data.eventAt(h, eureka.EventCrashWorkers, history.Inject)
	if !ok1 || !ok2 || !ok3 || len(death.Targets) == 0 {
		return m, "the partition, its heal or the worker's death was not recorded"
	}
	m.deathAt, m.dead = deathAt, death.Targets[0]
	s.measureOn(&m)
	s.measureOff(&m)
	m.gone, m.goneOK = listedUntil(m.data.R0Fetches, m.dead, m.deathAt)
	until := m.data.Duration
	if m.goneOK {
		until = m.gone
	}
	m.r0Tasks, m.r0Fail, _ = m.data.tasksIn(h.Ops, schedR0, m.deathAt, until)
	m.r3Tasks, m.r3Fail, _ = m.data.tasksIn(h.Ops, schedR3, 0, m.data.Duration)
	m.r3EmptyLo, m.r3EmptyHi = m.data.tasksWithoutInstance(h.Ops, schedR3, m.data.R3Fetches, s.eu.requestSlack())
	return m, ""
}

func (s *selfPreservation) measureOn(m *spMeasure) {
	m.engaged, m.engagedAll = map[string]time.Duration{}, len(m.data.On) > 0
	for name, h := range m.data.On {
		at, ok := engagedAt(h, m.partAt)
		if ok {
			m.engaged[name] = at - m.partAt
		}
		m.engagedAll = m.engagedAll && ok
		m.worst = max(m.worst, at-m.partAt)
		m.onEvicted = max(m.onEvicted, evictedIn(h, m.partAt, m.partEnd))
		if !ok {
			at = m.partEnd
		}
		lo, hi := s.evictBand(h, m.partAt, at)
		m.evictLo, m.evictHi = max(m.evictLo, lo), max(m.evictHi, hi)
	}
}

// evictBand bounds one "on" server's evictions during the partition: its
// runs after the leases surely expired and before it engaged (at) must
// evict up to the cap; those after they may have expired may.
func (s *selfPreservation) evictBand(h eurekamodel.History, partAt, at time.Duration) (lo, hi int) {
	cfg := s.eu.config()
	early, late := eurekamodel.ExpiryAfterPartition(cfg)
	surely, maybe := 0, 0
	for _, r := range h.Evictions {
		switch {
		case r.At >= at:
		case r.At > partAt+late:
			surely++
			maybe++
		case r.At > partAt+early:
			maybe++
		}
	}
	w := s.eu.Workers
	return eurekamodel.CappedEvictions(w, w, surely, cfg.RenewalPercent), eurekamodel.CappedEvictions(w, w, maybe, cfg.RenewalPercent)
}

func (s *selfPreservation) measureOff(m *spMeasure) {
	m.offEvicted, m.emptied = s.eu.Workers, len(m.data.Off) > 0
	for _, h := range m.data.Off {
		m.offEvicted = min(m.offEvicted, evictedIn(h, m.partAt, m.partEnd))
		at, ok := emptiedAt(h, m.partAt)
		m.emptied = m.emptied && ok && at <= m.partEnd
		m.lastEmpty = max(m.lastEmpty, at-m.partAt)
	}
	m.capOK = capRespected(m.data.Off, s.eu.config().RenewalPercent)
}

// engagedAt returns when a server's first eviction run after from refused
// to evict (self-preservation), and false if none did.
func engagedAt(h eurekamodel.History, from time.Duration) (time.Duration, bool) {
	for _, r := range h.Evictions {
		if r.At > from && !r.Enabled {
			return r.At, true
		}
	}
	return 0, false
}

// evictedIn counts a server's evictions in [from, to].
func evictedIn(h eurekamodel.History, from, to time.Duration) int {
	n := 0
	for _, r := range h.Evictions {
		if r.At >= from && r.At <= to {
			n += len(r.Evicted)
		}
	}
	return n
}

// emptiedAt returns when a server's registry first became empty by eviction.
func emptiedAt(h eurekamodel.History, from time.Duration) (time.Duration, bool) {
	for _, r := range h.Evictions {
		if r.At > from && len(r.Evicted) > 0 && r.Size == len(r.Evicted) {
			return r.At, true
		}
	}
	return 0, false
}

// capRespected checks the source's cap on every evicting run of every server.
func capRespected(hs map[string]eurekamodel.History, percent float64) bool {
	for _, h := range hs {
		for _, r := range h.Evictions {
			if r.Enabled && len(r.Evicted) != min(r.Expired, eurekamodel.EvictionLimit(r.Size, percent)) {
				return false
			}
		}
	}
	return true
}

// listedUntil returns when the first successful fetch after from no longer
// listed id.
func listedUntil(fetches []eurekamodel.FetchEvent, id string, from time.Duration) (time.Duration, bool) {
	for _, f := range fetches {
		if f.At > from && f.OK && !slices.Contains(f.IDs, id) {
			return f.At, true
		}
	}
	return 0, false
}

// Judge turns the recorded run into the result (pure).
func (s *selfPreservation) Judge(h *history.History) *report.Result {
	res := report.NewResult("")
	res.TimelineSeconds, res.Events = h.Timeline.Seconds(), h.Events
	m, missing := s.measure(h)
	if missing != "" {
		res.AddCheck(report.Yes("partition and worker death injected", "yes", "no").Invalid(missing))
		return res
	}
	s.metrics(res.Metrics, m)
	res.AddTable(s.minuteTable(m))
	res.AddCheck(s.onChecks(m)...)
	res.AddCheck(s.offChecks(m)...)
	res.AddCheck(s.deadChecks(m)...)
	res.AddTable(s.summaryTable(m))
	s.conclude(res, m)
	return res
}

// nanUnless returns v, or NaN when !ok.
func nanUnless(v float64, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}

func (s *selfPreservation) metrics(mt report.Metrics, m spMeasure) {
	mt["on.engaged_min"] = nanUnless(m.worst.Minutes(), m.engagedAll)
	mt["on.evicted"], mt["off.evicted"] = float64(m.onEvicted), float64(m.offEvicted)
	mt["off.all_evicted_min"] = nanUnless(m.lastEmpty.Minutes(), m.emptied)
	lo, hi := eurekamodel.EvictAllBand(s.eu.config(), s.eu.Workers)
	mt["off.all_evicted_min.theory_lo"], mt["off.all_evicted_min.theory_hi"] = lo.Minutes(), hi.Minutes()
	mt["dead_listed_min"] = nanUnless((m.gone - m.deathAt).Minutes(), m.goneOK)
	mt["r0.tasks_while_listed"], mt["r0.fail_while_listed"] = float64(m.r0Tasks), float64(m.r0Fail)
	mt["r0.fail_rate_while_listed"], mt["r3.fail"] = share(m.r0Fail, m.r0Tasks), float64(m.r3Fail)
}

func (s *selfPreservation) onChecks(m spMeasure) []report.Check {
	cfg := s.eu.config()
	engaged := report.Band("on: self-preservation engaged after the partition (last of 3 servers)", 0,
		eurekamodel.EngageBound(cfg).Minutes(), " min").Digits(2).
		From("isLeaseExpirationEnabled: eviction only while renewsLastMin (the last full minute, MeasuredRate) > threshold; "+
			"the bucket holding the partition or the next one falls to the threshold: "+engageRule(cfg)).
		Says(report.SaysValue("after about 15 min", 15)).
		Within(1, "the article's 'about 15 min', read as ± 1 min: one eviction run (every 60 s)").
		Because("the source engages at the first eviction run whose last full minute of renewals is ≤ the threshold; " +
			"15 min is renewalThresholdUpdateIntervalMs, how often the expected count behind the threshold is recounted")
	evicted := report.Band("on: workers evicted during the partition (most on one server)", float64(m.evictLo), float64(m.evictHi), "").
		From("no eviction run is allowed once engaged; a run between the leases' expiry (" + fmt.Sprintf("%d × lease", eurekamodel.LeaseFactor(cfg.LeaseBug)) +
			" after the last renewal) and the engagement evicts up to the cap (min(expired, size − (int)(size × 0.85)))").
		Says(report.SaysValue("no instance is evicted", 0)).SameCount().
		Because(s.scaledWhy(cfg))
	c := engaged.JudgeText(math.NaN(), "not on every server")
	if m.engagedAll {
		c = engaged.Judge(m.worst.Minutes())
	}
	return []report.Check{c, evicted.Judge(float64(m.onEvicted))}
}

// engageRule states EngageBound's rule for cfg.
func engageRule(cfg eurekamodel.Config) string {
	if cfg.RenewsBucket == cfg.EvictionInterval {
		return "≤ 2 eviction intervals"
	}
	return fmt.Sprintf("≤ 2 renewals windows (%s each) + 1 eviction interval (%s)", eurekamodel.FormatModel(cfg.RenewsBucket), eurekamodel.FormatModel(cfg.EvictionInterval))
}

// scaledWhy says why a scaled real run evicts before self-preservation
// engages: the renewals window is hard-coded in the source, the lease scales.
func (s *selfPreservation) scaledWhy(cfg eurekamodel.Config) string {
	return fmt.Sprintf("real Eureka at --time-scale %g: the renewals window is hard-coded to 60 s of real time (MeasuredRate), %s of model time, "+
		"while the lease scales (%s): the partitioned leases expire before the drop in renewals shows, and runs evict them up to the cap; "+
		"at the server's default intervals (time scale 1, the reference variant real-defaults) protection engages before any lease expires",
		s.eu.Scale, eurekamodel.FormatModel(cfg.RenewsBucket), eurekamodel.FormatModel(eurekamodel.LeaseFactor(cfg.LeaseBug)*cfg.LeaseDuration))
}

func (s *selfPreservation) offChecks(m spMeasure) []report.Check {
	cfg := s.eu.config()
	lo, hi := eurekamodel.EvictAllBand(cfg, s.eu.Workers)
	runs := eurekamodel.CapRuns(s.eu.Workers, cfg.RenewalPercent)
	empty := report.Band("off: every registry emptied by eviction (last of 3 servers)", lo.Minutes(), hi.Minutes(), " min").Digits(2).
		From(fmt.Sprintf("leases expire %d × 90 s after their last renewal; %d runs of at most size − (int)(size × 0.85); ±6 s replication, +0.5 s lateness per run",
			eurekamodel.LeaseFactor(cfg.LeaseBug), runs)).
		Says(report.Says("without self-preservation a partition would mass-evict (the article's premise)"))
	capped := report.Yes("off: every eviction run removed min(expired, size − (int)(size × 0.85))", "yes", "no").
		From("AbstractInstanceRegistry.evict")
	var c report.Check
	switch {
	case hi > m.partEnd-m.partAt:
		c = empty.Invalid(fmt.Sprintf("the partition (%s) ends before the band does", eurekamodel.FormatModel(m.partEnd-m.partAt)))
	case !m.emptied:
		c = empty.JudgeText(math.NaN(), fmt.Sprintf("not emptied (%d evicted)", m.offEvicted))
	default:
		c = empty.Judge(m.lastEmpty.Minutes())
	}
	return []report.Check{c, capped.JudgeBool(m.capOK)}
}

func (s *selfPreservation) deadChecks(m spMeasure) []report.Check {
	cfg := s.eu.config()
	lo := m.partEnd - m.deathAt
	if m.evictHi > 0 { // runs may evict expired leases before protection engages
		early, _ := eurekamodel.ExpiryAfterPartition(cfg)
		lo = max(0, m.partAt+early-m.deathAt)
	}
	// After the heal each live worker renews at its next heartbeat tick,
	// up to one renewal interval later (a fixed-period loop); from then the
	// renewals window can climb back above the threshold.
	hi := lo + cfg.RenewInterval + eurekamodel.StaleListingMax(cfg, cfg.FetchInterval)
	listed := report.Band("dead worker listed in r0's registry after it died", lo.Minutes(), hi.Minutes(), " min").Digits(2).
		From("until the heal, then one renewal interval (every heartbeat resumed) + " + engageRule(cfg) + " + response cache + fetch; " +
			"from its lease's expiry when runs evict before protection engages").
		Says(report.Says("a worker that dies meanwhile is not evicted"))
	if m.evictHi > 0 {
		listed = listed.Because(s.scaledWhy(cfg))
	}
	p := 1 / float64(s.eu.Workers)
	share0 := report.Band("r0 (no retry): failed share while the dead worker is listed", 0, 1, "").Digits(4).
		From(fmt.Sprintf("1/%d of the tasks pick it (binomial, ±4σ + 0.002)", s.eu.Workers)).
		Says(report.Says("callers keep hitting it"))
	r3 := report.Band("r3 (3 retries on other workers): failed tasks", float64(m.r3EmptyLo), float64(m.r3EmptyHi), "").
		From("a retry on another worker succeeds; a task sent while the scheduler's registry is empty (every worker evicted) has no instance to try").
		Says(report.Says("callers recover only through their own timeouts/retries"))
	if m.r3EmptyHi > 0 {
		r3 = r3.Because(s.scaledWhy(cfg))
	}
	cs := []report.Check{listed.JudgeText(math.NaN(), "still listed at the end")}
	switch {
	case m.goneOK:
		cs[0] = listed.Judge((m.gone - m.deathAt).Minutes())
	case m.data.Duration < m.deathAt+hi:
		cs[0] = listed.Invalid(fmt.Sprintf("still listed at the end, but the observation (%s after the heal) ends before the band does: give --after ≥ %s",
			eurekamodel.FormatModel(m.data.Duration-m.partEnd), eurekamodel.FormatModel(m.deathAt+hi-m.partEnd)))
	}
	if blo, bhi, ok := report.BinomialBand(p, m.r0Tasks, 0.002); ok {
		share0.Lo, share0.Hi = blo, bhi
		cs = append(cs, share0.Judge(share(m.r0Fail, m.r0Tasks)))
	} else {
		cs = append(cs, share0.Invalid("no r0 task while the dead worker was listed"))
	}
	if m.r3Tasks == 0 {
		return append(cs, r3.Invalid("r3 sent no task"))
	}
	return append(cs, r3.Judge(float64(m.r3Fail)))
}

// runIn returns a server's eviction run in [from, to).
func runIn(h eurekamodel.History, from, to time.Duration) (eurekamodel.EvictionRun, bool) {
	for _, r := range h.Evictions {
		if r.At >= from && r.At < to {
			return r, true
		}
	}
	return eurekamodel.EvictionRun{}, false
}

func (s *selfPreservation) minuteTable(m spMeasure) report.Table {
	t := report.Table{Title: "Per model minute after the partition: eviction runs of each cluster's servers s1/s2/s3",
		Header: []string{"min", "event", "on: renewsLastMin/threshold (s1)", "on: eviction (s1)", "on: size s1/s2/s3", "on: evicted",
			"off: renewsLastMin/threshold (s1)", "off: size s1/s2/s3", "off: evicted"}}
	first := -int(math.Ceil(m.partAt.Minutes())) + 1
	last := int((m.data.Duration - m.partAt).Minutes())
	for mi := first; mi < last; mi++ {
		from := m.partAt + time.Duration(mi)*time.Minute
		row := []string{fmt.Sprint(mi), eventIn(m, from, from+time.Minute)}
		row = append(row, clusterCells(m.data.On, from, true)...)
		row = append(row, clusterCells(m.data.Off, from, false)...)
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{
		"min m covers [m, m+1) model minutes after the partition; each server runs its eviction task every 60 s on its own phase",
		"eviction: 'refused' = isLeaseExpirationEnabled() false (self-preservation), 'runs' = leases may be evicted",
		eurekamodel.WallNote(m.data.Clock.Factor, m.data.Duration),
	}
	return t
}

func eventIn(m spMeasure, from, to time.Duration) string {
	var ev []string
	for _, e := range []struct {
		at   time.Duration
		name string
	}{{m.partAt, "partition"}, {m.deathAt, m.dead + " dies"}, {m.partEnd, "heal"}} {
		if e.at >= from && e.at < to {
			ev = append(ev, e.name)
		}
	}
	return strings.Join(ev, ", ")
}

// clusterCells returns the cells of one cluster for one minute.
func clusterCells(hs map[string]eurekamodel.History, from time.Duration, withState bool) []string {
	names := make([]string, 0, len(hs))
	for n := range hs {
		names = append(names, n)
	}
	sort.Strings(names)
	var sizes, evicted []string
	rate, state := "", ""
	for i, name := range names {
		r, ok := runIn(hs[name], from, from+time.Minute)
		if !ok {
			sizes, evicted = append(sizes, "·"), append(evicted, "·")
			continue
		}
		sizes = append(sizes, fmt.Sprint(r.Size-len(r.Evicted)))
		evicted = append(evicted, fmt.Sprint(len(r.Evicted)))
		if i == 0 {
			rate, state = fmt.Sprintf("%d/%d", r.RenewsLastMin, r.Threshold), "runs"
			if !r.Enabled {
				state = "refused"
			}
		}
	}
	cells := []string{rate}
	if withState {
		cells = append(cells, state)
	}
	return append(cells, strings.Join(sizes, "/"), strings.Join(evicted, "/"))
}

func (s *selfPreservation) summaryTable(m spMeasure) report.Table {
	cfg := s.eu.config()
	lo, hi := eurekamodel.EvictAllBand(cfg, s.eu.Workers)
	var engaged []string
	for _, name := range sortedNames(m.engaged) {
		engaged = append(engaged, fmt.Sprintf("%s %.2f", name, m.engaged[name].Minutes()))
	}
	listed := nanUnless((m.gone - m.deathAt).Minutes(), m.goneOK)
	return report.Table{Title: "Article, source rule and model",
		Header: []string{"what", "article", "source rule", "measured (model)"},
		Rows: [][]string{
			{"self-preservation shows up", "after about 15 minutes",
				"first 60-s eviction run whose last full minute had renewsLastMin ≤ threshold (the 15 min is the threshold-recount interval)",
				fmt.Sprintf("after %s min (per server: %s)", fmtNum(nanUnless(m.worst.Minutes(), m.engagedAll)), strings.Join(engaged, ", "))},
			{"workers evicted during the partition, self-preservation on", "none", "none once engaged", fmt.Sprint(m.onEvicted)},
			{"workers evicted, self-preservation off", "—", fmt.Sprintf("all, at most size − (int)(size × 0.85) per run: empty in %.2f–%.2f min", lo.Minutes(), hi.Minutes()),
				fmt.Sprintf("%d of %d, empty after %s min", m.offEvicted, s.eu.Workers, fmtNum(nanUnless(m.lastEmpty.Minutes(), m.emptied)))},
			{"a worker dying during the partition stays listed", "yes; callers recover only by their own timeouts/retries",
				"until the first run after the heal with a full minute above threshold, + cache + fetch", fmt.Sprintf("%s min", fmtNum(listed))},
			{"scheduler without retries while it is listed", "tasks routed to the dead worker time out",
				fmt.Sprintf("1/%d of tasks fail", s.eu.Workers), fmt.Sprintf("%d of %d fail (%s)", m.r0Fail, m.r0Tasks, pctStr(share(m.r0Fail, m.r0Tasks)))},
			{"scheduler with 3 retries on other workers", "recovers", "no task fails", fmt.Sprintf("%d fail", m.r3Fail)},
		}}
}

// sortedNames returns the keys of m in order.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (s *selfPreservation) conclude(res *report.Result, m spMeasure) {
	res.Conclude(fmt.Sprintf("The article saw self-preservation about 15 minutes into the partition; %s engaged %s min after it on the last of its 3 servers — at the first eviction run whose last full minute of renewals fell to the threshold. The 15 minutes are how often the threshold's expected count is recounted, not when protection starts.",
		s.eu.who(),
		fmtNum(nanUnless(m.worst.Minutes(), m.engagedAll))))
	res.Conclude(fmt.Sprintf("With self-preservation %d workers were evicted during the %s partition; without it the servers evicted %d of %d, emptying their registries after %s min, at most size − (int)(size × 0.85) per run.",
		m.onEvicted, eurekamodel.FormatModel(m.partEnd-m.partAt), m.offEvicted, s.eu.Workers, fmtNum(nanUnless(m.lastEmpty.Minutes(), m.emptied))))
	res.Conclude(fmt.Sprintf("The worker that died %s into the partition stayed in the scheduler's registry for %s min; meanwhile the scheduler without retries failed %d of %d tasks and the one with 3 retries %d: only the caller's retries hid the dead instance.",
		eurekamodel.FormatModel(m.deathAt-m.partAt), fmtNum(nanUnless((m.gone-m.deathAt).Minutes(), m.goneOK)), m.r0Fail, m.r0Tasks, m.r3Fail))
}
