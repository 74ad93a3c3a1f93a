package nacosreal

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Seconds is the run's length in whole seconds from T0 (the last call's second included).
func (r JitterResult) Seconds() int {
	last := r.T0
	for _, c := range r.Callers {
		for _, call := range c.Calls {
			if call.Scheduled.After(last) {
				last = call.Scheduled
			}
		}
	}
	return int(last.Sub(r.T0)/time.Second) + 1
}

// Names returns the callers' names, sorted.
func (r JitterResult) Names() []string {
	names := make([]string, 0, len(r.Callers))
	for n := range r.Callers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Table renders one row per second: the server's lowest count in that second and each
// caller's ok/not-ok calls (by scheduled time). A * marks seconds inside the fault.
func (r JitterResult) Table() string {
	var b strings.Builder
	names := r.Names()
	fmt.Fprintf(&b, "%-5s %-6s", "s", "server")
	for _, n := range names {
		fmt.Fprintf(&b, " %15s", n)
	}
	b.WriteString("\n")
	n := r.Seconds()
	per := map[string][2][]int{}
	for _, name := range names {
		ok, bad := PerSecond(r.Callers[name].Calls, r.T0, n)
		per[name] = [2][]int{ok, bad}
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%-5s %-6s", r.secondLabel(i), r.serverMin(i))
		for _, name := range names {
			fmt.Fprintf(&b, " %15s", fmt.Sprintf("%d/%d", per[name][0][i], per[name][1][i]))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (r JitterResult) secondLabel(i int) string {
	from, to := r.T0.Add(time.Duration(i)*time.Second), r.T0.Add(time.Duration(i+1)*time.Second)
	if from.Before(r.HealAt) && to.After(r.FaultAt) {
		return fmt.Sprintf("%d*", i)
	}
	return fmt.Sprint(i)
}

// serverMin is the lowest count the server listed in second i ("?" without a reading).
func (r JitterResult) serverMin(i int) string {
	from, to := r.T0.Add(time.Duration(i)*time.Second), r.T0.Add(time.Duration(i+1)*time.Second)
	low := -1
	for _, s := range r.Server {
		if s.At.Before(from) || !s.At.Before(to) || s.Count < 0 {
			continue
		}
		if low < 0 || s.Count < low {
			low = s.Count
		}
	}
	if low < 0 {
		return "?"
	}
	return fmt.Sprint(low)
}

// Timeline lists, in time order relative to T0, every change of the server's count, every
// event of the server's logs and every list change a caller's client reported.
func (r JitterResult) Timeline() string {
	type row struct {
		at   time.Duration
		text string
	}
	var rows []row
	prev := -2
	for _, s := range r.Server {
		if s.Count != prev {
			rows = append(rows, row{s.At.Sub(r.T0), fmt.Sprintf("server lists %d (healthy %d) %s", s.Count, s.Healthy, s.Err)})
			prev = s.Count
		}
	}
	for _, name := range r.Names() {
		for _, e := range r.Callers[name].Events {
			rows = append(rows, row{e.Time.Sub(r.T0), fmt.Sprintf("%s: %s %d %s", name, e.Kind, e.Count, e.Detail)})
		}
	}
	for _, e := range r.ServerLog {
		text := "server log: " + e.Kind + " " + e.Detail
		if e.Size >= 0 {
			text = fmt.Sprintf("server log: %s of %d instances (revision %s)", e.Kind, e.Size, e.Detail)
		}
		rows = append(rows, row{e.At.Sub(r.T0), text})
	}
	rows = append(rows, row{r.FaultAt.Sub(r.T0), r.Fault + " starts"}, row{r.HealAt.Sub(r.T0), r.Fault + " healed"})
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].at < rows[j].at })
	var b strings.Builder
	for _, x := range rows {
		fmt.Fprintf(&b, "%8.3f s  %s\n", x.at.Seconds(), strings.TrimSpace(x.text))
	}
	return b.String()
}

// Errs returns the distinct error texts of a caller's failed calls with their counts.
func (r JitterResult) Errs(name string) map[string]int {
	out := map[string]int{}
	for _, c := range r.Callers[name].Calls {
		if c.Outcome != OK {
			out[c.Err]++
		}
	}
	return out
}
