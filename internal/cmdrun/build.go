package cmdrun

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// commandPkg is the experiments command's package.
const commandPkg = "sdchaos/cmd/experiments"

// Command returns the experiments command built from this checkout's sources, cached (Built)
// under CacheDir()/experiments/<hash of what it is built from>/experiments.
func Command() (string, error) {
	dir, err := Built(Recipe{Kind: "experiments", Key: commandKey, Build: buildCommand})
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "experiments"), nil
}

// commandKey hashes the build ID of every package the command is linked from (go list
// -export: each compiled package's content, the toolchain and flags included; the packages
// already compiled come from go's build cache) with GOFLAGS.
func commandKey(env []string) (string, error) {
	out, err := runGo("", env, "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.BuildID}}", commandPkg)
	if err != nil {
		return "", err
	}
	return digest(os.Getenv("GOFLAGS"), string(out)), nil
}

// buildCommand links the command into dir, without VCS stamping: a binary reused by every
// checkout at these sources names no one commit (the command then asks git in its working
// directory, history.NewMeta).
func buildCommand(dir string, env []string) error {
	_, err := runGo("", env, "build", "-buildvcs=false", "-o", filepath.Join(dir, "experiments"), commandPkg)
	return err
}

// UpstreamBinary returns the program name built from package pkg of module at version, in a
// scratch module so the project's go.mod keeps no dependency on it, cached (Built) under
// CacheDir()/<module>/<version>-<hash of the go version and GOFLAGS>/name: once per module
// version for every test and test binary.
func UpstreamBinary(module, version, pkg, name string) (string, error) {
	r := Recipe{
		Kind: safeName(module),
		Key: func(env []string) (string, error) {
			goVersion, err := runGo("", env, "env", "GOVERSION")
			if err != nil {
				return "", err
			}
			return safeName(version) + "-" + digest(string(goVersion), os.Getenv("GOFLAGS"))[:12], nil
		},
		Build: func(dir string, env []string) error {
			gomod := "module upstreambuild\n\ngo 1.26\n"
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
				return err
			}
			env = append(env, "GOWORK=off")
			if _, err := runGo(dir, env, "get", module+"@"+version); err != nil {
				return err
			}
			_, err := runGo(dir, env, "build", "-o", filepath.Join(dir, name), pkg)
			return err
		},
	}
	dir, err := Built(r)
	if err != nil {
		return "", fmt.Errorf("building %s@%s: %w", module, version, err)
	}
	return filepath.Join(dir, name), nil
}

// digest is a short hex SHA-256 of parts.
func digest(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:16])
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// safeName turns a module path or version into one file name.
func safeName(s string) string {
	return unsafeChars.ReplaceAllString(s, "_")
}
