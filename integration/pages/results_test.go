package pages_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sdchaos/internal/cmdrun"
)

// TestResultsAreWhatTheJudgesSayNow re-judges every saved history in results/ with the
// command's recheck and fails when a judge's output no longer matches the stored report:
// results/ can never silently go stale.
func TestResultsAreWhatTheJudgesSayNow(t *testing.T) {
	if testing.Short() {
		t.Skip("re-judges every stored run (half a minute)")
	}
	// Every directory of results/ that holds saved histories: the runs, the CI baseline, the
	// other worlds' runs and each sweep's points (each says how it was made).
	dirs := []string{"../../results", "../../results/baseline", "../../results/eureka-real", "../../results/zookeeper", "../../results/matrix", "../../results/nacos-cluster"}
	points, _ := filepath.Glob("../../results/sweeps/*/points")
	if len(points) == 0 {
		t.Error("no sweep points under results/sweeps")
	}
	for _, dir := range append(dirs, points...) {
		if out, err := exec.Command(cmdrun.Exe, "recheck", dir).CombinedOutput(); err != nil {
			t.Errorf("recheck %s: %v — regenerate it with the command its README or summary gives\n%s", strings.TrimPrefix(dir, "../../"), err, out)
		}
	}
}
