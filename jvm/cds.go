package jvm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"sdchaos/childproc"
)

// Class-data sharing (AppCDS) for a built piece. A Spring Boot jar loads its libraries from
// nested jars through its own class loader, which the JVM cannot archive; Spring Boot's
// jarmode tools (`java -Djarmode=tools -jar app.jar extract`, Spring Boot ≥ 3.3) lay the jar
// out as an application jar whose manifest Class-Path names every library jar beside it, which
// the JVM's own application class loader loads and a dynamic archive
// (-XX:ArchiveClassesAtExit) can hold. Both live beside the built jar, made once per jar (the
// extract) and once per jar and Java runtime (the archive: an archive is valid only for the
// JVM that wrote it).

// extractDir is the name of the extracted layout beside target/app.jar.
const extractDir = "extracted"

// Extracted returns the application jar of jar's extracted layout (<piece dir>/extracted/app.jar),
// extracting it once under the build lock.
func Extracted(ctx context.Context, jar string) (string, error) {
	dir := filepath.Join(filepath.Dir(filepath.Dir(jar)), extractDir)
	app := filepath.Join(dir, JarName)
	if exists(app) {
		return app, nil
	}
	unlock, err := lockCache(filepath.Dir(filepath.Dir(filepath.Dir(jar))))
	if err != nil {
		return "", fmt.Errorf("extracting %s: %w", jar, err)
	}
	defer unlock()
	if exists(app) {
		return app, nil
	}
	java, err := Java()
	if err != nil {
		return "", err
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return "", fmt.Errorf("extracting %s: %w", jar, err)
	}
	cmd := exec.CommandContext(ctx, java, "-XX:-UsePerfData", "-Djarmode=tools", "-jar", jar, "extract", "--destination", tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.RemoveAll(tmp)
		return "", fmt.Errorf("extracting %s with Spring Boot's jarmode tools: %w: %s", jar, err, strings.TrimSpace(string(out)))
	}
	if !exists(filepath.Join(tmp, JarName)) {
		_ = os.RemoveAll(tmp)
		return "", fmt.Errorf("extracting %s: no %s in the extracted layout", jar, JarName)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("extracting %s: %w", jar, err)
	}
	return app, nil
}

// SharedArchive returns the path of the AppCDS archive for the extracted application jar app
// and the Java runtime that runs it (<dir of app>/app-<java key>.jsa), and whether it exists.
func SharedArchive(app string) (path string, ok bool, err error) {
	key, err := javaKey()
	if err != nil {
		return "", false, err
	}
	path = filepath.Join(filepath.Dir(app), "app-"+key+".jsa")
	return path, exists(path), nil
}

// LockArchive takes the build lock of the cache that holds app (one process writes an archive
// at a time) and returns its release. The caller writes the archive as <archive>.tmp and renames
// it while it holds the lock: a tmp left by a training that was killed is removed by the next
// holder of the lock, or the next Build that finds the lock free (see lockCache).
func LockArchive(app string) (func(), error) {
	return lockCache(filepath.Dir(filepath.Dir(filepath.Dir(app))))
}

// javaKey names the Java runtime: a digest of the resolved java executable's path and the
// `java -version` text (an archive written by one JVM build is refused by another).
func javaKey() (string, error) {
	java, err := Java()
	if err != nil {
		return "", err
	}
	resolved, err := filepath.EvalSymlinks(java)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", java, err)
	}
	out, err := exec.Command(java, "-XX:-UsePerfData", "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s -version: %w", java, err)
	}
	sum := sha256.Sum256([]byte(resolved + "\x00" + string(out)))
	return hex.EncodeToString(sum[:])[:12], nil
}

// EndForArchive ends a training JVM started with -XX:ArchiveClassesAtExit: it sends SIGTERM and
// waits for the JVM to exit (its shutdown hooks, then the archive's dump); after timeout it is
// killed and the archive counts as not written (the error names log, the JVM's log).
func EndForArchive(c *childproc.Child, timeout time.Duration, log string) error {
	if err := c.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-c.Done():
		return nil
	case <-time.After(timeout):
		c.Kill()
		return fmt.Errorf("the training JVM did not exit within %s of SIGTERM; log %s", timeout, log)
	}
}
