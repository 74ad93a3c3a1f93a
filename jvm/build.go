package jvm

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// JarName is the file every piece's build leaves in target/ (each pom sets
// <finalName>app</finalName> and packages a runnable jar).
const JarName = "app.jar"

// Logf receives progress lines (the first build of a piece takes minutes).
type Logf func(format string, args ...any)

// CacheDir is where built pieces live: $SDCHAOS_JVM_CACHE if set, else
// os.UserCacheDir()/sdchaos/jvm.
func CacheDir() (string, error) {
	if d := os.Getenv("SDCHAOS_JVM_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache dir for JVM builds (set SDCHAOS_JVM_CACHE): %w", err)
	}
	return filepath.Join(base, "sdchaos", "jvm"), nil
}

// Build returns the runnable jar of piece, building it with Maven first if
// these sources were never built here. logf may be nil.
func Build(ctx context.Context, piece Piece, logf Logf) (string, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	fsys, err := sourcesOf(piece)
	if err != nil {
		return "", err
	}
	dir, err := buildDir(piece, fsys)
	if err != nil {
		return "", err
	}
	jar := filepath.Join(dir, "target", JarName)
	if exists(jar) {
		sweepIfIdle(filepath.Dir(dir))
		return jar, nil
	}
	if _, err := Java(); err != nil {
		return "", err
	}
	mvn, err := Maven()
	if err != nil {
		return "", err
	}
	unlock, err := lockCache(filepath.Dir(dir))
	if err != nil {
		return "", fmt.Errorf("building %s: %w", piece, err)
	}
	defer unlock()
	if exists(jar) { // built by another process while we waited
		return jar, nil
	}
	if err := runMaven(ctx, mvn, piece, fsys, dir, logf); err != nil {
		return "", err
	}
	return jar, nil
}

// buildDir is the cache dir of these sources of piece.
func buildDir(piece Piece, fsys fs.FS) (string, error) {
	sum, err := hashOf(fsys)
	if err != nil {
		return "", fmt.Errorf("building %s: %w", piece, err)
	}
	root, err := CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, string(piece)+"-"+sum), nil
}

// runMaven extracts the sources into a fresh dir and packages them there;
// the dir is kept only when the jar was built.
func runMaven(ctx context.Context, mvn string, piece Piece, fsys fs.FS, dir string, logf Logf) error {
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("building %s: clearing %s: %w", piece, tmp, err)
	}
	if err := extract(fsys, tmp); err != nil {
		return fmt.Errorf("building %s: copying its sources: %w", piece, err)
	}
	logPath := dir + ".build.log"
	logf("building the JVM piece %s with Maven (first use of these sources; the first build downloads its dependencies into ~/.m2), log in %s", piece, logPath)
	start := time.Now()
	logFile, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("building %s: %w", piece, err)
	}
	defer logFile.Close()
	cmd := exec.CommandContext(ctx, mvn, "-B", "-q", "-DskipTests", "package")
	cmd.Dir, cmd.Stdout, cmd.Stderr = tmp, logFile, logFile
	// Maven's own JVM writes no /tmp/hsperfdata_<user> either (a killed one would leave its file).
	cmd.Env = append(os.Environ(), "MAVEN_OPTS="+strings.TrimSpace(os.Getenv("MAVEN_OPTS")+" -XX:-UsePerfData"))
	cmd.WaitDelay = 5 * time.Second
	// Maven dies with the harness (mvn execs java, which keeps the signal).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Run(); err != nil {
		_ = os.RemoveAll(tmp)
		if ctx.Err() != nil {
			return fmt.Errorf("building %s: %w", piece, ctx.Err())
		}
		return fmt.Errorf("building %s: %w (%v; see %s; it ends: %s)", piece, ErrBuild, err, logPath, logTail(logPath))
	}
	if !exists(filepath.Join(tmp, "target", JarName)) {
		return fmt.Errorf("building %s: %w: no target/%s after mvn package (see %s)", piece, ErrBuild, JarName, logPath)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("building %s: %w", piece, err)
	}
	logf("built %s in %.0f s", piece, time.Since(start).Seconds())
	return nil
}

// Stale temporaries. Every `.tmp` in the cache but one is written by the holder of the build
// lock and moved into place (or removed) before it lets the lock go: a Maven build's
// <piece>-<hash>.tmp, an extract's <piece>-<hash>/extracted.tmp and an AppCDS training's
// <piece>-<hash>/extracted/app-<java key>.jsa.tmp (eurekareal, nacosreal: under LockArchive).
// One such tmp found by the next holder of the lock is therefore stale: its writer was killed
// (SIGKILL, go test's timeout) or failed before it could clean up. The inventory's
// <jar>.inventory.json.<pid>.tmp is written without the lock and is stale once its pid is gone.
// lockCache removes both kinds as it takes the lock; Build, when it finds its jar built and
// takes no lock, removes them too if the lock is free (sweepIfIdle), so the next use of any
// piece leaves none behind for good.

// lockedTmps are the patterns, below the cache root, of the tmps only the lock's holder writes.
var lockedTmps = []string{"*.tmp", "*/" + extractDir + ".tmp", "*/" + extractDir + "/*.tmp"}

// pidTmps is the pattern of the inventory's tmps (inventoryOfJar), named by their writer's pid.
const pidTmps = "*/target/*" + inventorySuffix + ".*.tmp"

// lockCache takes the build lock of the cache root and, holding it, removes the stale tmps.
func lockCache(root string) (func(), error) {
	unlock, err := lock(root)
	if err != nil {
		return nil, err
	}
	sweepStale(root)
	return unlock, nil
}

// sweepIfIdle removes the stale tmps of root when there are any and no process holds the build
// lock (one that does may be writing them); it never waits.
func sweepIfIdle(root string) {
	if len(globAll(root, slices.Concat(lockedTmps, []string{pidTmps}))) == 0 {
		return
	}
	f, err := os.OpenFile(filepath.Join(root, "build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return
	}
	defer f.Close() // releases the lock
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
		sweepStale(root)
	}
}

// sweepStale removes, under the build lock, every tmp a holder of the lock writes and every
// inventory tmp whose writer's pid is gone. A removal that fails is left for the next sweep.
func sweepStale(root string) {
	for _, p := range globAll(root, lockedTmps) {
		_ = os.RemoveAll(p)
	}
	for _, p := range globAll(root, []string{pidTmps}) {
		if pidGone(p) {
			_ = os.Remove(p)
		}
	}
}

// pidGone says whether the writer of the inventory tmp p (<cache>.<pid>.tmp) is gone.
func pidGone(p string) bool {
	name := strings.TrimSuffix(filepath.Base(p), ".tmp")
	pid, err := strconv.Atoi(name[strings.LastIndexByte(name, '.')+1:])
	if err != nil || pid <= 0 {
		return false // not one of ours
	}
	return syscall.Kill(pid, 0) == syscall.ESRCH
}

// globAll returns the paths below root matching any of patterns.
func globAll(root string, patterns []string) []string {
	var out []string
	for _, pat := range patterns {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		out = append(out, m...)
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// logTail is the last line of a failed build's log with text in it, without
// terminal colours (the log is overwritten by the next build, so the error
// carries what Maven said last).
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(ansi.ReplaceAllString(string(b), ""), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return "(an empty log)"
}

// ansi matches a terminal colour sequence.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")
