package cmdrun

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fakeRecipe builds a file named after key and counts its builds.
func fakeRecipe(key string, builds *int, fail bool) Recipe {
	return Recipe{
		Kind: "fake",
		Key:  func([]string) (string, error) { return key, nil },
		Build: func(dir string, _ []string) error {
			*builds++
			if err := os.WriteFile(filepath.Join(dir, "out"), []byte(key), 0o644); err != nil {
				return err
			}
			if fail {
				return errors.New("the build failed")
			}
			return nil
		},
	}
}

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestBuilt: a key is built once and then reused; the stale tmps a killed build leaves are
// removed by the next build; a failed build leaves no tmp; an unused build of another key is
// pruned, one in use is kept.
func TestBuilt(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("SDCHAOS_TEST_CACHE", cache)
	root := filepath.Join(cache, "fake")
	var builds int
	if _, err := Built(fakeRecipe("k1", &builds, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := Built(fakeRecipe("k1", &builds, false)); err != nil || builds != 1 {
		t.Fatalf("second use of k1: %v, %d builds, want 1", err, builds)
	}
	for _, stale := range []string{"k2.tmp/out", "work.tmp/go-build1/x", "k0/out"} { // a killed build's, and an unused build
		p := filepath.Join(root, stale)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("stale"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Built(fakeRecipe("k3", &builds, true)); err == nil {
		t.Fatal("a failed build returned no error")
	}
	dir, err := Built(fakeRecipe("k2", &builds, false))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out")); string(b) != "k2" {
		t.Errorf("k2's build holds %q, want a fresh build", b)
	}
	if got, want := names(t, root), []string{"build.lock", "k1", "k2"}; !slices.Equal(got, want) {
		t.Errorf("the cache holds %v, want %v (k1 and k2 in use by this process)", got, want)
	}
}
