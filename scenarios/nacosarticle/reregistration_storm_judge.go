//go:build sdchaos_unconverted

package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"sdchaos/report"
	"sdchaos/storm"
)

// judge turns the storm rows into the result (pure).
func (s *reregistrationStorm) judge(rows []stormRow) *report.Result {
	res := report.NewResult("")
	t := report.Table{Title: "Re-registration after the registry returns (times from the moment the link heals)",
		Header: []string{"N", "connections", "strategy", "listed at the loss", "left at the heal", "peak calls/100ms", "peak in flight", "p50 ms", "p99 ms", "errors", "timeouts", "registered again", "all back after"}}
	for _, r := range rows {
		back := fmt.Sprintf("%.2f s", r.convergeS)
		if r.converged < r.n {
			back = fmt.Sprintf("not within %s", s.settle)
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(r.n), strconv.Itoa(r.clients), r.strategy, count(r.keysBefore), count(r.keysLeft),
			strconv.Itoa(peak(r.started)), strconv.Itoa(peak(r.flight)), fmt.Sprintf("%.0f", r.summary.P50ms), fmt.Sprintf("%.0f", r.summary.P99ms),
			strconv.Itoa(r.summary.Errors), strconv.Itoa(r.summary.Timeouts), fmt.Sprintf("%d/%d", r.converged, r.n), back})
		s.metrics(res.Metrics, r, r.n == rows[0].n)
	}
	t.Notes = []string{storm.Immediate{}.String(), storm.FullJitter{Base: s.Base, Cap: s.Cap}.String(),
		"? = the registry did not answer the count (5 s deadline)",
		"a re-registration is two calls (grant, put); latencies are per call; errors include timeouts"}
	res.AddTable(t)
	res.AddTable(s.bucketsTable(rows))
	for i := 0; i+1 < len(rows); i += 2 {
		imm, jit := rows[i], rows[i+1]
		res.AddCheck(report.Check{Name: fmt.Sprintf("@%d: jitter spreads the storm (peak calls per 100 ms)", imm.n),
			Article: "back-off with jitter avoids the spike", Measured: fmt.Sprintf("immediate %d, jitter %d", peak(imm.started), peak(jit.started)),
			Band: "jitter < immediate", Pass: peak(jit.started) < peak(imm.started)})
		s.conclude(res, imm, jit)
	}
	return res
}

func (s *reregistrationStorm) metrics(m report.Metrics, r stormRow, first bool) {
	vals := map[string]float64{
		"peak_per_100ms": float64(peak(r.started)), "peak_in_flight": float64(peak(r.flight)),
		"p50_ms": r.summary.P50ms, "p99_ms": r.summary.P99ms, "errors": float64(r.summary.Errors),
		"timeouts": float64(r.summary.Timeouts), "converge_s": r.convergeS, "registered": float64(r.converged),
		"listed_at_loss": float64(r.keysBefore), "left_at_heal": float64(r.keysLeft),
	}
	for k, v := range vals {
		m[fmt.Sprintf("%s.%s@%d", r.strategy, k, r.n)] = v
		if first {
			m[r.strategy+"."+k] = v
		}
	}
}

// bucketsTable shows the first 2 s after the heal, per 100 ms, for the largest size.
func (s *reregistrationStorm) bucketsTable(rows []stormRow) report.Table {
	const cols = 20
	big := rows[len(rows)-2:]
	t := report.Table{Title: fmt.Sprintf("N = %d: registry calls started / most in flight, per 100 ms after the link heals", big[0].n),
		Header: []string{"strategy"}}
	for i := 0; i < cols; i++ {
		t.Header = append(t.Header, fmt.Sprintf("%.1f", float64(i)/10))
	}
	for _, r := range big {
		cells := []string{r.strategy}
		for i := 0; i < cols; i++ {
			cells = append(cells, fmt.Sprintf("%d/%d", r.started[i], r.flight[i]))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

func (s *reregistrationStorm) conclude(res *report.Result, imm, jit stormRow) {
	res.Conclude(fmt.Sprintf("N = %d: all at once, the registrants started %d calls in the busiest 100 ms (p99 %.0f ms, %d failed calls) and %d/%d were back after %.2f s; with jittered back-off the peak was %d (p99 %.0f ms, %d failed calls), %d/%d back after %.2f s.",
		imm.n, peak(imm.started), imm.summary.P99ms, imm.summary.Errors, imm.converged, imm.n, imm.convergeS,
		peak(jit.started), jit.summary.P99ms, jit.summary.Errors, jit.converged, jit.n, jit.convergeS))
	for _, r := range []stormRow{imm, jit} {
		if r.keysBefore >= 0 && r.keysBefore < r.n {
			res.Conclude(fmt.Sprintf("At N = %d only %d of %d keys were listed when the link was cut (%s phase): the steady renewals alone (%d per %s) already overloaded the registry on this machine.",
				r.n, r.keysBefore, r.n, r.strategy, r.n, s.Renew))
		}
		if r.keysLeft != 0 {
			res.Conclude(fmt.Sprintf("At N = %d, %s keys were still listed when the link healed (%s phase): the leases did not drain within ttl + %s.", r.n, count(r.keysLeft), r.strategy, drainAllowance))
		}
		if r.converged < r.n {
			res.Conclude(fmt.Sprintf("At N = %d the %s storm overloaded the registry: only %d of %d were registered again within %s (%d calls timed out). The harness's clients and proxies share this machine's cores with the three members, as the recovering registry shared its CPU with the storm in the incident.",
				r.n, r.strategy, r.converged, r.n, s.settle, r.summary.Timeouts))
		}
	}
	switch {
	case imm.summary.Errors > 0 || imm.summary.P99ms > 10*jit.summary.P99ms:
		res.Conclude(fmt.Sprintf("At N = %d the synchronized storm hurt: %s.", imm.n, hurt(imm, jit)))
	case imm.converged == imm.n:
		res.Conclude(fmt.Sprintf("At N = %d etcd absorbed the synchronized storm (%d calls) without a failed call: the incident's registry fell over, etcd on this machine did not at this size.",
			imm.n, imm.summary.Calls))
	}
	if jit.summary.Errors > imm.summary.Errors {
		res.Conclude(fmt.Sprintf("With a %s first window the jittered storm had more failed calls than the synchronized one (%d vs %d): the window is too narrow for %d registrants here; widen --backoff-base.",
			s.Base, jit.summary.Errors, imm.summary.Errors, jit.n))
	}
}

func hurt(imm, jit stormRow) string {
	var parts []string
	if imm.summary.Errors > 0 {
		parts = append(parts, fmt.Sprintf("%d failed calls (%d timeouts)", imm.summary.Errors, imm.summary.Timeouts))
	}
	if jit.summary.P99ms > 0 {
		parts = append(parts, fmt.Sprintf("p99 latency %.0f× the jittered one", imm.summary.P99ms/jit.summary.P99ms))
	}
	return strings.Join(parts, ", ")
}

// count prints a key count, "?" when the registry did not answer.
func count(n int) string {
	if n < 0 {
		return "?"
	}
	return strconv.Itoa(n)
}

func peak(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
