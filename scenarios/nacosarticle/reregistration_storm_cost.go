package nacosarticle

import (
	"fmt"
	"strconv"
	"time"

	"sdchaos/report"
	"sdchaos/storm"
)

// costTable shows what each process spent in each phase: the registry
// (the three members) against the harness (registrants, probes),
// measured in the run (/proc/<pid>/stat and getrusage; VmHWM). Phases
// without a measurement (histories saved before it existed) are left out;
// nil when none has one.
func costTable(sizes []stormSize) *report.Table {
	t := report.Table{Title: "Cost of the run by process: CPU time and peak memory from the start of each phase's world to its end",
		Header: []string{"N", "strategy", "process", "CPU s", "share of the run's CPU", "peak RSS MiB"}}
	for _, sz := range sizes {
		for _, sd := range []stormSide{sz.imm, sz.jit} {
			t.Rows = append(t.Rows, costRows(sz.n, sd.phase.Strategy, sd.phase.Cost)...)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = []string{"harness: this process (registrants, probes; getrusage, children excluded; peak RSS reset at the phase's start); members: their processes' whole life (/proc/<pid>/stat utime + stime, VmHWM); members of a cluster the harness did not start: from their /metrics, the CPU time between the phase's start and end and the largest resident size read (a lower bound of the peak); the harness's metrics readers (processes reading those members' /metrics): /proc, summed",
		"in a sharded run each shard's harness is its own row; the registry is the members' rows",
		"registrants per harness core (metric cost.registrants_per_harness_core) = N ÷ the harness cores the phase kept busy (all harness processes' CPU time ÷ the longest harness process's metered time, its world's start to its end): how many registrants one fully busy core would carry at this phase's load"}
	for _, sz := range sizes {
		for _, sd := range []stormSide{sz.imm, sz.jit} {
			if l := sd.phase.Lateness; l != nil && l.N > 0 {
				t.Notes = append(t.Notes, fmt.Sprintf("harness lateness at N = %d, %s: the %d re-registration attempts started %.0f ms (median), %.0f ms (p99), %.0f ms (most) after the time their back-off asked for",
					sz.n, sd.phase.Strategy, l.N, l.P50ms, l.P99ms, l.MaxMs))
			}
		}
	}
	return &t
}

func costRows(n int, strategy string, cs []storm.ProcCost) [][]string {
	var total time.Duration
	for _, c := range cs {
		total += c.CPU
	}
	var rows [][]string
	harness, registry := storm.ProcCost{Name: "all harness processes"}, storm.ProcCost{Name: "the registry (members)"}
	for _, c := range cs {
		rows = append(rows, costRow(n, strategy, c, total))
		sum := &registry
		if storm.IsHarness(c.Name) {
			sum = &harness
		}
		sum.CPU += c.CPU
		sum.PeakRSS += c.PeakRSS
	}
	if len(cs) > 0 {
		rows = append(rows, costRow(n, strategy, harness, total), costRow(n, strategy, registry, total))
	}
	return rows
}

func costRow(n int, strategy string, c storm.ProcCost, total time.Duration) []string {
	share := "—"
	if total > 0 {
		share = fmt.Sprintf("%.0f %%", 100*c.CPU.Seconds()/total.Seconds())
	}
	return []string{strconv.Itoa(n), strategy, c.Name, fmt.Sprintf("%.1f", c.CPU.Seconds()), share,
		fmt.Sprintf("%.0f", float64(c.PeakRSS)/(1<<20))}
}

// costMetrics are the harness's and the registry's CPU share and peak RSS
// of a phase of n registrants (absent without a measurement), and the
// registrants one harness core would carry at the phase's load (where the
// harness's metered time was recorded).
func costMetrics(n int, cs []storm.ProcCost) map[string]float64 {
	if len(cs) == 0 {
		return nil
	}
	var h, r, total, wall time.Duration
	var hRSS, rRSS int64
	for _, c := range cs {
		total += c.CPU
		if storm.IsHarness(c.Name) {
			h, hRSS, wall = h+c.CPU, hRSS+c.PeakRSS, max(wall, c.Wall)
		} else {
			r, rRSS = r+c.CPU, rRSS+c.PeakRSS
		}
	}
	if total <= 0 {
		return nil
	}
	m := map[string]float64{"cost.harness_cpu_share": h.Seconds() / total.Seconds(), "cost.harness_cpu_s": h.Seconds(),
		"cost.harness_peak_rss_mib": float64(hRSS) / (1 << 20), "cost.registry_cpu_s": r.Seconds(),
		"cost.registry_peak_rss_mib": float64(rRSS) / (1 << 20)}
	if h > 0 && wall > 0 {
		m["cost.registrants_per_harness_core"] = float64(n) * wall.Seconds() / h.Seconds()
	}
	return m
}
