package xds

import "sort"

// Tally sums a window of calls.
type Tally struct {
	OK, Fail int
	// Targets counts the successful calls per instance address.
	Targets map[string]int
}

// TallyOf sums calls.
func TallyOf(calls []CallLine) Tally {
	t := Tally{Targets: map[string]int{}}
	for _, c := range calls {
		if c.Outcome == OutcomeOK {
			t.OK++
			t.Targets[c.Target]++
		} else {
			t.Fail++
		}
	}
	return t
}

// TargetList returns the instances that answered, sorted.
func (t Tally) TargetList() []string {
	out := make([]string, 0, len(t.Targets))
	for a := range t.Targets {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}
