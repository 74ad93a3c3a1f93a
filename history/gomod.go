package history

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
)

// GoModSource is the Source of a component read from the main module's
// go.mod: a test binary's build info lists no dependencies, and under
// module graph pruning (go ≥ 1.17) go.mod requires every module that
// provides a package to the build at the version the build selects.
const GoModSource = "the go.mod of the harness's module (this binary's build info lists no dependencies: a test binary)"

var (
	goModOnce sync.Once
	goModVers map[string]string
)

// goModVersion returns path's version in the go.mod of the main module
// (found from the working directory upwards; it must declare the module
// the binary's build info names), or "".
func goModVersion(bi *debug.BuildInfo, path string) string {
	goModOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			return
		}
		for ; ; dir = filepath.Dir(dir) {
			if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
				if mod, vers := parseGoMod(data); mod == bi.Main.Path {
					goModVers = vers
				}
				return
			}
			if filepath.Dir(dir) == dir {
				return
			}
		}
	})
	return goModVers[path]
}

// parseGoMod returns a go.mod's module path and the version of every module
// it requires, after its replace directives ("v1.2.3 (replaced by …)").
func parseGoMod(data []byte) (module string, versions map[string]string) {
	versions = map[string]string{}
	replaced := map[string]string{}
	block := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
			continue
		case len(f) == 2 && f[1] == "(":
			block = f[0]
			continue
		case f[0] == ")":
			block = ""
			continue
		case block == "" && len(f) >= 2 && (f[0] == "module" || f[0] == "require" || f[0] == "replace"):
			if f[0] == "module" {
				module = strings.Trim(f[1], `"`)
				continue
			}
			goModLine(f[0], f[1:], versions, replaced)
			continue
		}
		goModLine(block, f, versions, replaced)
	}
	for p, r := range replaced {
		if v, ok := versions[p]; ok {
			versions[p] = v + " (replaced by " + r + ")"
		}
	}
	return module, versions
}

// goModLine reads one require or replace entry.
func goModLine(block string, f []string, versions, replaced map[string]string) {
	switch {
	case block == "require" && len(f) >= 2:
		versions[f[0]] = f[1]
	case block == "replace":
		if i := indexOf(f, "=>"); i > 0 && i+1 < len(f) {
			replaced[f[0]] = strings.Join(f[i+1:], " ")
		}
	}
}

func indexOf(f []string, s string) int {
	for i, x := range f {
		if x == s {
			return i
		}
	}
	return -1
}
