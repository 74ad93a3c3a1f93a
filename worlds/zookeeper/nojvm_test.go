package zookeeper

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"sdchaos/jvm"
	"sdchaos/ports"
)

// TestWithoutJVMTools: with no java and no mvn, and nothing built, the
// ensemble and the callers fail at once with one line naming the missing
// tool (the command's exit 4), before anything starts.
func TestWithoutJVMTools(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("JAVA_HOME", "")
	t.Setenv("SDCHAOS_JVM_CACHE", t.TempDir())
	_, err := Start(context.Background(), nil, ports.New(testPortBase, "testPortBase"), DefaultConfig())
	check := func(what string, err error) {
		if !errors.Is(err, jvm.ErrNoJava) && !errors.Is(err, jvm.ErrNoMaven) {
			t.Errorf("%s: %v, want ErrNoJava or ErrNoMaven", what, err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", what, err)
		}
	}
	check("Start", err)
	_, err = StartJavaCaller(context.Background(), nil, JavaCallerSpec{Name: "c", Mode: Curator, Connect: "127.0.0.1:1",
		Service: "api", Rate: 1, End: time.Now().Add(time.Minute), CallTimeout: time.Second, Dir: t.TempDir()})
	check("StartJavaCaller", err)
}
