package nacos

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sdchaos/cpulimit"
	"sdchaos/fault"
)

// TestWorldCPULimitHoldsTheServerAndIsRemoved starts a world whose server is put under 0.5
// CPU once ready, with one persistent instance on a service created with protectThreshold 0.5:
// the JVM is in the cgroup, the service holds the instance, and Close removes the cgroup.
func TestWorldCPULimitHoldsTheServerAndIsRemoved(t *testing.T) {
	needJVM(t)
	if l, err := cpulimit.New("probe-"+strconv.Itoa(os.Getpid()), 0.5); errors.Is(err, cpulimit.ErrUnavailable) {
		t.Skipf("no cgroup here: %v", err)
	} else if err == nil {
		_ = l.Remove()
	}
	sup := newSup(t)
	spec := worldSpec(t, 7, nil, func(*World) (fault.Timeline, error) { return nil, nil })
	spec.Instances, spec.CPULimit = 1, 0.5
	spec.ServiceSettings = &ServiceSettings{Persistent: true, ProtectThreshold: 0.5}
	w, err := NewWorld(sup, spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	defer w.Close()
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	dir := w.limit.Dir()
	procs, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil || !strings.Contains(string(procs), strconv.Itoa(w.Server().Pid())+"\n") {
		t.Errorf("cgroup.procs of %s: %q (%v), want the server's pid %d", dir, procs, err, w.Server().Pid())
	}
	if list, err := w.Server().Instances(ctx, spec.Service); err != nil || len(list) != 1 {
		t.Errorf("the persistent service lists %v (%v), want its one instance", list, err)
	}
	w.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the cgroup %s is still there after Close: %v", dir, err)
	}
}
