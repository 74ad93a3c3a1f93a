package main

import (
	"testing"

	"sdchaos/history"
	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

// TestNoNaNInProseOfAnEmptyRun judges every scenario on a history that
// recorded nothing: whatever the verdict, no figure is printed as NaN.
func TestNoNaNInProseOfAnEmptyRun(t *testing.T) {
	for _, spec := range scenarios.All() {
		t.Run(spec.Name, func(t *testing.T) {
			res := scentest.Judge(scentest.MustConfigure(t, spec.Name), &history.History{})
			for _, w := range scentest.NonFinite(res) {
				t.Error(w)
			}
		})
	}
}
