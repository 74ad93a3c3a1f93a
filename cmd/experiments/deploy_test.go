package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDeployManifestsValidate checks every manifest under deploy/ against
// the Kubernetes API's schemas with kubernetes-validate --strict (PyPI: it
// ships the schemas, so it runs offline; .ci/run installs it), the storm's
// Indexed Job also with its start time filled in as the docs say, and
// requires the validator to refuse a misspelt field (it must be able to
// fail). It checks field names, types and required fields — not what only
// a cluster checks (enum values such as completionMode, admission, whether
// the image, the volume or the members exist). Skipped without the tool.
func TestDeployManifestsValidate(t *testing.T) {
	tool, err := exec.LookPath("kubernetes-validate")
	if err != nil {
		t.Skip("kubernetes-validate is not installed (pip install kubernetes-validate)")
	}
	manifests, _ := filepath.Glob("../../deploy/*.yaml")
	dir := t.TempDir()
	job, err := os.ReadFile("../../deploy/storm-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	filled := filepath.Join(dir, "storm-indexed-job.filled.yaml")
	at := time.Now().Add(3 * time.Minute).UTC().Format("2006-01-02T15:04:05Z") // date -u -d '+3 min' +%Y-%m-%dT%H:%M:%SZ
	writeText(t, filled, strings.ReplaceAll(string(job), "START_AT_PLACEHOLDER", at))
	if out, err := exec.Command(tool, append([]string{"--strict", "--quiet", filled}, manifests...)...).CombinedOutput(); err != nil {
		t.Errorf("kubernetes-validate: %v\n%s", err, out)
	}
	bad := filepath.Join(dir, "bad.yaml")
	writeText(t, bad, "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  paralellism: 2\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: a, image: b}]\n")
	if out, err := exec.Command(tool, "--strict", "--quiet", bad).CombinedOutput(); err == nil {
		t.Errorf("kubernetes-validate passed a misspelt field:\n%s", out)
	}
}

func writeText(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
