package anyregistry

import (
	"fmt"

	"sdchaos/experiment"
	"sdchaos/report"
)

// conclude says, from the measured numbers, what each caller served and
// failed and which policy it behaved like.
func (r *run) conclude() {
	var policies []string
	for _, c := range r.x.Callers {
		if c.Kind == experiment.PolicyCaller {
			policies = append(policies, c.Name)
		}
	}
	for _, c := range r.x.Callers {
		ok, fail := r.res.Series[c.Name].Total()
		line := fmt.Sprintf("%s served %d calls and failed %d", c.Name, ok, fail)
		if c.Kind != experiment.PolicyCaller && len(policies) > 0 {
			best, same, total := report.Resembles(r.res.Series, c.Name, policies)
			line += fmt.Sprintf(": it behaved as %s in %d of %d seconds", best, same, total)
		}
		r.res.Conclude(line + ".")
	}
}
