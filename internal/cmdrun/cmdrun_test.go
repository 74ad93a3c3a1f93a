package cmdrun

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRemoveStale removes the command dir of a test binary that is gone and keeps a live
// one's and any dir not named by Main.
func TestRemoveStale(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{ // name → kept
		fmt.Sprintf("%s%d-1", dirPrefix, gone.Process.Pid): false,
		fmt.Sprintf("%s%d-2", dirPrefix, os.Getpid()):      true,
		dirPrefix + "notapid":                              true,
	}
	for d := range dirs {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeStale()
	for d, kept := range dirs {
		if _, err := os.Stat(filepath.Join(tmp, d)); (err == nil) != kept {
			t.Errorf("%s: exists %v, want %v", d, err == nil, kept)
		}
	}
}
