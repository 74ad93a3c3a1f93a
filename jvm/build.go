package jvm

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
		return jar, nil
	}
	if _, err := Java(); err != nil {
		return "", err
	}
	mvn, err := Maven()
	if err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Dir(dir))
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
		return fmt.Errorf("building %s: %w (%v; see %s)", piece, ErrBuild, err, logPath)
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

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
