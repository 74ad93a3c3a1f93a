package nacosarticle

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"sdchaos/cluster"
	"sdchaos/report"
	"sdchaos/storm"
)

// metrics sets <strategy>.<name>@<N> for every size, and the same without
// the suffix for the first size.
func (s *reregistrationStorm) metrics(mt report.Metrics, sizes []stormSize) {
	for i, sz := range sizes {
		for _, sd := range []stormSide{sz.imm, sz.jit} {
			for k, v := range sideMetrics(sd) {
				mt[fmt.Sprintf("%s.%s@%d", sd.phase.Strategy, k, sz.n)] = v
				if i == 0 {
					mt[sd.phase.Strategy+"."+k] = v
				}
			}
		}
	}
}

func sideMetrics(sd stormSide) map[string]float64 {
	p, l := sd.phase, sd.load
	m := map[string]float64{
		"peak_per_100ms": float64(peak(p.Started)), "peak_in_flight": float64(peak(p.InFlight)),
		"p50_ms": p.Calls.P50ms, "p99_ms": p.Calls.P99ms, "errors": float64(p.Calls.Errors),
		"timeouts": float64(p.Calls.Timeouts), "converge_s": p.Last.Seconds(), "registered": float64(p.Back),
		"listed_at_loss": float64(sd.listed), "left_at_heal": float64(sd.left), "drained_s": sd.drained.Seconds(),
		"registry.peak_per_100ms": l.Peak(), "registry.requests": l.TotalReceived, "registry.ok": l.TotalOK,
		"registry.errors": l.TotalErrors, "registry.closed_by_clients": l.ClosedByClients, "registry.closed_coded_as_errors": l.ClosedCodedAsErrors, "registry.served": l.Served, "registry.p50_ms": l.P50ms,
		"registry.p99_ms": l.P99ms, "registry.mean_ms": l.MeanMs, "registry.leader_changes": l.LeaderChanges,
		"registry.fell_over": falls(sd), "registry.max_sample_gap_ms": report.Ms(l.MaxGap),
	}
	if l.Lacking(cluster.FamilyHandled) != "" || l.Untyped > 0 {
		for _, k := range []string{"registry.errors", "registry.ok", "registry.closed_by_clients", "registry.closed_coded_as_errors"} {
			m[k] = math.NaN()
		}
	}
	if l.Lacking(cluster.FamilyStarted) != "" {
		m["registry.peak_per_100ms"], m["registry.requests"] = math.NaN(), math.NaN()
	}
	for k, v := range costMetrics(p.N, p.Cost) {
		m[k] = v
	}
	if l := p.Lateness; l != nil && l.N > 0 {
		m["lateness.p50_ms"], m["lateness.p99_ms"], m["lateness.max_ms"] = l.P50ms, l.P99ms, l.MaxMs
	}
	return m
}

func peak(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// count prints a key count, "?" when the registry did not answer.
func count(n int) string {
	if n < 0 {
		return "?"
	}
	return strconv.Itoa(n)
}

func (s *reregistrationStorm) clientTable(sizes []stormSize, settle time.Duration) report.Table {
	t := report.Table{Title: "The registrants' side: re-registration after the registry returns (times from the moment the link heals)",
		Header: []string{"N", "connections", "strategy", "listed at the loss", "drained after", "left at the heal", "calls started, peak/100ms", "peak in flight",
			"p50 ms", "p99 ms", "errors", "timeouts", "registered again", "all back after"}}
	for _, sz := range sizes {
		for _, sd := range []stormSide{sz.imm, sz.jit} {
			p := sd.phase
			back := fmt.Sprintf("%.2f s", p.Last.Seconds())
			if p.Back < sz.n {
				back = fmt.Sprintf("not within %s", settle)
			}
			t.Rows = append(t.Rows, []string{strconv.Itoa(sz.n), strconv.Itoa(p.Clients), p.Strategy, count(sd.listed),
				fmt.Sprintf("%.1f s", sd.drained.Seconds()), count(sd.left),
				strconv.Itoa(peak(p.Started)), strconv.Itoa(peak(p.InFlight)), msText(p.Calls.P50ms, false), msText(p.Calls.P99ms, false),
				strconv.Itoa(p.Calls.Errors), strconv.Itoa(p.Calls.Timeouts), fmt.Sprintf("%d/%d", p.Back, sz.n), back})
		}
	}
	t.Notes = []string{storm.Immediate{}.String(), storm.FullJitter{Base: s.Base, Cap: s.Cap}.String(),
		"? = the registry did not answer the count (5 s deadline); — = no call completed",
		"a re-registration is two calls (grant, put); latencies are per call; errors include timeouts"}
	for _, sz := range sizes {
		for _, sd := range []stormSide{sz.imm, sz.jit} {
			if k := errKinds(sd.phase.Calls.ErrKinds); k != "" {
				t.Notes = append(t.Notes, fmt.Sprintf("errors at N = %d, %s: %s", sz.n, sd.phase.Strategy, k))
			}
		}
	}
	return t
}

// errKinds lists error kinds by count, most first ("timeout 26, EOF 3").
func errKinds(m map[string]int) string {
	kinds := make([]string, 0, len(m))
	for k := range m {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if m[kinds[i]] != m[kinds[j]] {
			return m[kinds[i]] > m[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func (s *reregistrationStorm) registryTable(sizes []stormSize) report.Table {
	t := report.Table{Title: "The registry's side: what the 3 members received and answered from the heal to the end of the phase (" + sampledHow(sizes) + ")",
		Header: []string{"N", "strategy", "window", "calls received, peak/100ms", "received", "answered ok", "answered with an error",
			"served p50 ms", "served p99 ms", "leader changes", "fell over", "longest sample gap"}}
	for _, sz := range sizes {
		for _, sd := range []stormSide{sz.imm, sz.jit} {
			t.Rows = append(t.Rows, registryRow(sz, sd))
		}
	}
	t.Notes = []string{"received/answered: grpc_server_started_total and grpc_server_handled_total summed over the members (every method: grants, puts, renewals, the harness's counts); a stream its client cancelled (LeaseKeepAlive or Watch ending Canceled: a KeepAliveOnce closes its stream once it has the answer) is not the registry's error and counts as ok; on etcd before 3.7 such a stream ends Unavailable, etcd's \"no leader\", and counts as closed by its client on a member that had a leader throughout the window, as an error on one that did not; unary calls held by the blackhole reach the members at the heal and end Canceled or DeadlineExceeded, counted as errors (neither code nor method tells them from a call the registry was too slow for)",
		"served: etcd_server_request_duration_seconds (reads and raft requests from entering the server to the result), histogram quantiles",
		"fell over: a leader change (etcd_server_leader_changes_seen_total), a member without a leader (etcd_server_has_leader 0), a member lost, or no answer to a count within 5 s after the phase"}
	t.Notes = append(t.Notes, registryNotes(sizes)...)
	return t
}

// registryRow is one phase's row of the registry's side; a figure a
// member does not export is "—".
func registryRow(sz stormSize, sd stormSide) []string {
	l := sd.load
	recv, peakRecv := fmt.Sprintf("%.0f", l.TotalReceived), fmt.Sprintf("%.0f", l.Peak())
	if l.Lacking(cluster.FamilyStarted) != "" {
		recv, peakRecv = "—", "—"
	}
	ok, errs := fmt.Sprintf("%.0f", l.TotalOK), fmt.Sprintf("%.0f%s", l.TotalErrors, codes(l.ErrCodes))
	if errorsUntyped(sz) != "" {
		ok, errs = "—", "—"
	}
	changes, fell := fmt.Sprintf("%.0f", l.LeaderChanges), fellText(sd)
	if l.Lacking(cluster.FamilyHasLeader, cluster.FamilyLeaderChanges) != "" {
		changes, fell = "—", "—"
	}
	return []string{strconv.Itoa(sz.n), sd.phase.Strategy, fmt.Sprintf("%.1f s", sd.window.Seconds()), peakRecv, recv, ok, errs,
		msText(l.P50ms, false), msText(l.P99ms, l.TooSlow), changes, fell, fmt.Sprintf("%.0f ms", report.Ms(l.MaxGap))}
}

// sampledHow says how the members' metrics were read: inside their
// processes, or over their /metrics by the harness (a cluster it did not
// start).
func sampledHow(sizes []stormSize) string {
	for _, sz := range sizes {
		if sz.imm.phase.SampledOver == sampledOverHTTP {
			return "their metrics endpoints, read by the harness every 100 ms"
		}
	}
	return "their own metrics, sampled every 100 ms inside each member"
}

// codes formats error codes: " (DeadlineExceeded 12, Unavailable 3)".
func codes(m map[string]float64) string {
	if len(m) == 0 {
		return ""
	}
	keys := report.SortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.0f", k, m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// bucketsTable shows the first 2 s after the heal, per 100 ms, for one size.
func (s *reregistrationStorm) bucketsTable(sz stormSize) report.Table {
	const cols = 20
	t := report.Table{Title: fmt.Sprintf("N = %d, per 100 ms after the link heals: calls the registrants started / calls the registry received / answered with an error", sz.n),
		Header: []string{"strategy"}}
	for i := 0; i < cols; i++ {
		t.Header = append(t.Header, fmt.Sprintf("%.1f", float64(i)/10))
	}
	for _, sd := range []stormSide{sz.imm, sz.jit} {
		cells := []string{sd.phase.Strategy}
		for i := 0; i < cols; i++ {
			cells = append(cells, fmt.Sprintf("%d / %.0f / %.0f", at(sd.phase.Started, i), atF(sd.load.Received, i), atF(sd.load.Errors, i)))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

func at(xs []int, i int) int {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

func atF(xs []float64, i int) float64 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

func (s *reregistrationStorm) conclude(res *report.Result, sz stormSize, settle time.Duration) {
	imm, jit := sz.imm, sz.jit
	res.Conclude(fmt.Sprintf("N = %d: %s; the registrants had %d and %d failed calls, and %d/%d and %d/%d were back.",
		sz.n, receivedText(sz), imm.phase.Calls.Errors, jit.phase.Calls.Errors, imm.phase.Back, sz.n, jit.phase.Back, sz.n))
	if sz.why != "" {
		res.Conclude(fmt.Sprintf("N = %d cannot be judged: %s.", sz.n, sz.why))
	}
	concludeMissing(res, sz)
	for _, sd := range []stormSide{imm, jit} {
		s.concludeSide(res, sz.n, sd, settle)
	}
	if ip := imm.load.Peak(); sz.why == "" && ip > 0 && jit.load.Peak()/ip > peakRatioMax {
		res.Conclude(fmt.Sprintf("At N = %d jitter did not lower what the registry received (%.0f vs %.0f per 100 ms): the first window (%s) spreads %d registrants too little for this registry; widen --backoff-base.",
			sz.n, jit.load.Peak(), ip, s.Base, sz.n))
	}
}

func (s *reregistrationStorm) concludeSide(res *report.Result, n int, sd stormSide, settle time.Duration) {
	if why := sd.load.Lacking(cluster.FamilyHasLeader, cluster.FamilyLeaderChanges); why != "" {
		res.Conclude(fmt.Sprintf("At N = %d whether the registry kept its leader under the %s storm is not measured: %s.", n, sd.phase.Strategy, why))
	} else if falls(sd) > 0 {
		res.Conclude(fmt.Sprintf("At N = %d the %s storm knocked the registry over: %s.", n, sd.phase.Strategy, fellText(sd)))
	} else if sd.phase.Strategy == "immediate" {
		res.Conclude(fmt.Sprintf("At N = %d the registry absorbed the synchronized storm: no leader change, every member up with a leader, serving after it (the incident's registry fell over; etcd on this machine did not at this size).", n))
	}
	if sd.listed >= 0 && sd.listed < n {
		res.Conclude(fmt.Sprintf("At N = %d only %d of %d keys were listed when the link was cut (%s phase): the steady renewals (%d per %s) already overloaded the registry here.",
			n, sd.listed, n, sd.phase.Strategy, n, s.Renew))
	}
	if sd.left != 0 {
		res.Conclude(fmt.Sprintf("At N = %d, %s keys were still listed when the link healed (%s phase): the leases did not drain within %s.", n, count(sd.left), sd.phase.Strategy, s.hold(n)))
	}
	if sd.phase.Back < n {
		res.Conclude(fmt.Sprintf("At N = %d only %d of %d %s registrants were registered again within %s (%d calls timed out); the harness's clients share this machine's cores with the three members.",
			n, sd.phase.Back, n, sd.phase.Strategy, settle, sd.phase.Calls.Timeouts))
	}
}
