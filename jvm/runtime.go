package jvm

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"sdchaos/history"
)

// JavaRuntime is the Java runtime the JVM children run on, as it describes
// itself (its system properties).
type JavaRuntime struct {
	// Path is the java executable (Java()).
	Path string
	// Home is java.home; Version java.runtime.version; Vendor java.vendor;
	// Name java.runtime.name; VM java.vm.name.
	Home, Version, Vendor, Name, VM string
}

var (
	runtimeMu    sync.Mutex
	runtimeCache = map[string]JavaRuntime{}
)

// Runtime returns the runtime of the java executable Java() finds, asking
// it once per process (java -XshowSettings:properties -version).
func Runtime(ctx context.Context) (JavaRuntime, error) {
	java, err := Java()
	if err != nil {
		return JavaRuntime{}, err
	}
	runtimeMu.Lock()
	defer runtimeMu.Unlock()
	if r, ok := runtimeCache[java]; ok {
		return r, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, java, "-XX:-UsePerfData", "-XshowSettings:properties", "-version").CombinedOutput()
	if err != nil {
		return JavaRuntime{}, fmt.Errorf("asking %s for its version: %w", java, err)
	}
	r := parseRuntime(java, string(out))
	if r.Version == "" {
		return JavaRuntime{}, fmt.Errorf("asking %s for its version: no java.runtime.version in its settings", java)
	}
	runtimeCache[java] = r
	return r, nil
}

// parseRuntime reads the "    key = value" lines of -XshowSettings:properties.
func parseRuntime(path, out string) JavaRuntime {
	r := JavaRuntime{Path: path}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), " = ")
		if !ok {
			continue
		}
		switch k {
		case "java.home":
			r.Home = v
		case "java.runtime.version":
			r.Version = v
		case "java.vendor":
			r.Vendor = v
		case "java.runtime.name":
			r.Name = v
		case "java.vm.name":
			r.VM = v
		}
	}
	return r
}

// Component returns the runtime as a run's component, used by usedBy.
func (r JavaRuntime) Component(usedBy string) history.Component {
	return history.Component{Name: "Java runtime", Role: history.RoleRuntime, Coordinates: r.Home, Version: r.Version,
		UsedBy: usedBy, Source: r.Path + " -XshowSettings:properties (java.runtime.version)",
		Note: strings.TrimSpace(fmt.Sprintf("%s, %s (vendor %s)", r.Name, r.VM, r.Vendor))}
}
