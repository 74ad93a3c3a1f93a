package anyregistry

import (
	"encoding/json"
	"fmt"
	"math"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// Plots draws every caller's calls per second with the fault windows
// shaded, from the experiment the history carries.
func (c *Config) Plots(h *history.History) ([]figure.Plot, error) {
	var rec record
	if err := json.Unmarshal(h.Experiment, &rec); err != nil || rec.Experiment.Name == "" {
		return nil, fmt.Errorf("the history holds no experiment")
	}
	x := rec.Experiment
	series := report.PerSecond(h.Ops, callerNames(x), int(math.Ceil(h.Timeline.Seconds())))
	return scenarios.PerSecondPlot(x.Name, h, series, rows(x)...)
}
