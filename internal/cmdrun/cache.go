package cmdrun

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// CacheDir is where the test binaries keep what they build once for many: $SDCHAOS_TEST_CACHE
// if set, else os.UserCacheDir()/sdchaos/test.
func CacheDir() (string, error) {
	if d := os.Getenv("SDCHAOS_TEST_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache dir for test builds (set SDCHAOS_TEST_CACHE): %w", err)
	}
	return filepath.Join(base, "sdchaos", "test"), nil
}

// A Recipe is a build cached by Built: Kind names its folder of the cache, Key names the
// build's inputs (two recipes with one key build the same thing) and Build writes the build
// into dir, a fresh directory. Both run go commands through GoCommand with env.
type Recipe struct {
	Kind  string
	Key   func(env []string) (string, error)
	Build func(dir string, env []string) error
}

// held are the in-use locks of the builds this process uses, open until it exits.
var held struct {
	sync.Mutex
	files []*os.File
}

// Built returns CacheDir()/<Kind>/<Key>, which r.Build filled once: under <Kind>/build.lock it
// removes every <Kind>/*.tmp (only the lock's holder writes one, so one found is stale: its
// writer was killed), builds into <key>.tmp if <key> is missing and renames it into place,
// marks <key> in use by this process (a shared flock on <key>/use.lock, held until the process
// exits, whatever kills it) and removes every other build of the kind no process uses.
func Built(r Recipe) (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	root := filepath.Join(cache, r.Kind)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("cached build of %s: %w", r.Kind, err)
	}
	lock, err := flock(filepath.Join(root, "build.lock"), syscall.LOCK_EX)
	if err != nil {
		return "", fmt.Errorf("cached build of %s: taking the build lock: %w", r.Kind, err)
	}
	defer lock.Close()
	sweepTmps(root)
	work := filepath.Join(root, "work.tmp") // GOTMPDIR: go's own work dirs stay in the cache
	defer os.RemoveAll(work)
	if err := os.Mkdir(work, 0o755); err != nil {
		return "", fmt.Errorf("cached build of %s: %w", r.Kind, err)
	}
	env := append(os.Environ(), "GOTMPDIR="+work, "SDCHAOS_PARENT_PID="+strconv.Itoa(os.Getpid()))
	key, err := r.Key(env)
	if err != nil {
		return "", fmt.Errorf("cached build of %s: its key: %w", r.Kind, err)
	}
	dir := filepath.Join(root, key)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := buildInto(dir, env, r.Build); err != nil {
			return "", fmt.Errorf("cached build of %s: %w", r.Kind, err)
		}
	}
	if err := hold(dir); err != nil {
		return "", fmt.Errorf("cached build of %s: %w", r.Kind, err)
	}
	prune(root, key)
	return dir, nil
}

// buildInto runs build in dir.tmp and renames it to dir.
func buildInto(dir string, env []string, build func(string, []string) error) error {
	tmp := dir + ".tmp"
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return err
	}
	if err := build(tmp, env); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	return os.Rename(tmp, dir)
}

// flock opens path (created if missing) and takes how on it.
func flock(path string, how int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// hold marks dir in use until this process exits.
func hold(dir string) error {
	f, err := flock(filepath.Join(dir, "use.lock"), syscall.LOCK_SH)
	if err != nil {
		return fmt.Errorf("marking %s in use: %w", dir, err)
	}
	held.Lock()
	held.files = append(held.files, f)
	held.Unlock()
	return nil
}

// sweepTmps removes every *.tmp of root: called under its build lock.
func sweepTmps(root string) {
	tmps, _ := filepath.Glob(filepath.Join(root, "*.tmp"))
	for _, t := range tmps {
		_ = os.RemoveAll(t)
	}
}

// prune removes the builds of root other than key that no process holds in use: called under
// its build lock, so none is being marked in use meanwhile.
func prune(root, key string) {
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if !e.IsDir() || e.Name() == key || strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		dir := filepath.Join(root, e.Name())
		f, err := flock(filepath.Join(dir, "use.lock"), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != nil {
			continue // in use
		}
		_ = os.RemoveAll(dir)
		f.Close()
	}
}

// GoCommand is `go args...` run in dir with env that dies with this process (a test binary
// SIGKILLed mid-build leaves no go command building on).
func GoCommand(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// runGo runs GoCommand and returns its stdout, its output in the error.
func runGo(dir string, env []string, args ...string) ([]byte, error) {
	cmd := GoCommand(dir, env, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}
