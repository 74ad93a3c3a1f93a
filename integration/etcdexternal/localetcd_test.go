package etcdexternal

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sys/unix"

	"sdchaos/etcdcli"
	"sdchaos/internal/cmdrun"
	"sdchaos/internal/peerproxy"
)

// localEtcd is a 3-member cluster of plain etcd processes started by a test
// (not through package cluster), as a user would run one: each member has a
// pid file and a start script in Dir, and advertises a raft-aware peer
// proxy (package peerproxy) as its peer URL, controlled at Control.
type localEtcd struct {
	Dir, Control string
	Names        []string
	ClientURLs   []string
	set          *peerproxy.Set
	ctl          *http.Server
	stopReap     chan struct{}
	reaped       sync.WaitGroup
}

// buildUpstreamEtcd returns etcd's own server binary (package main of
// go.etcd.io/etcd/server/v3, a wrapper of etcdmain) at the version this
// module uses, built in a scratch module so the project's go.mod keeps no
// dependency on etcd's command-line packages: once per module version and Go
// toolchain into the user's cache, shared by every test and test binary
// (cmdrun.UpstreamBinary).
func buildUpstreamEtcd(t *testing.T) string {
	t.Helper()
	const mod = "go.etcd.io/etcd/server/v3"
	bin, err := cmdrun.UpstreamBinary(mod, etcdModuleVersion(t), mod, "etcd")
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// etcdModuleVersion returns the version of go.etcd.io/etcd/server/v3 in go.mod.
func etcdModuleVersion(t *testing.T) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "go.etcd.io/etcd/server/v3").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// startLocalEtcd starts three members of bin on ports base+1…base+3
// (clients), base+11… (peer listeners), base+21… (peer proxies, the
// advertised peer URLs) and base+30 (the proxies' control).
// With tls (a directory holding ca.pem, server.pem, server-key.pem) the
// client URLs are https and require a client certificate; extra are more
// flags for every member.
func startLocalEtcd(t *testing.T, bin string, base int, tls string, extra ...string) *localEtcd {
	t.Helper()
	for _, tool := range []string{"curl", "setsid"} { // the pid-file nemesis's and the start scripts'
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the local pid-file nemesis needs %s: %v", tool, err)
		}
	}
	// Members restarted by a nemesis command outlive its shell; as this
	// process's orphans they are reaped here, not left as zombies.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatalf("becoming a subreaper: %v", err)
	}
	l := &localEtcd{Dir: t.TempDir(), set: peerproxy.NewSet(), stopReap: make(chan struct{})}
	var initial []string
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("m%d", i)
		l.Names = append(l.Names, name)
		l.ClientURLs = append(l.ClientURLs, fmt.Sprintf("%s://127.0.0.1:%d", scheme(tls), base+i))
		initial = append(initial, fmt.Sprintf("%s=http://127.0.0.1:%d", name, base+20+i))
		if _, err := l.set.Add(fmt.Sprintf("127.0.0.1:%d", base+20+i), fmt.Sprintf("127.0.0.1:%d", base+10+i)); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(l.stop)
	if tls != "" {
		extra = append(extra, "--cert-file="+tls+"/server.pem", "--key-file="+tls+"/server-key.pem",
			"--trusted-ca-file="+tls+"/ca.pem", "--client-cert-auth")
	}
	l.Control = fmt.Sprintf("http://127.0.0.1:%d", base+30)
	l.ctl = &http.Server{Addr: fmt.Sprintf("127.0.0.1:%d", base+30), Handler: l.set.ControlHandler()}
	go func() { _ = l.ctl.ListenAndServe() }()
	for i, name := range l.Names {
		script := fmt.Sprintf("#!/bin/sh\nsetsid %s --name %s --data-dir %s/%s.data --listen-client-urls %s --advertise-client-urls %s "+
			"--listen-peer-urls http://127.0.0.1:%d --initial-advertise-peer-urls http://127.0.0.1:%d --initial-cluster %s "+
			"--initial-cluster-token local --initial-cluster-state new %s >>%s/%s.log 2>&1 </dev/null &\necho $! > %s/%s.pid\n",
			bin, name, l.Dir, name, l.ClientURLs[i], l.ClientURLs[i], base+11+i, base+21+i, strings.Join(initial, ","), strings.Join(extra, " "), l.Dir, name, l.Dir, name)
		path := filepath.Join(l.Dir, name+".start")
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(path).CombinedOutput(); err != nil {
			t.Fatalf("starting %s: %v %s", name, err, out)
		}
	}
	l.reaped.Add(1)
	go l.reap()
	l.waitHealthy(t)
	return l
}

// reap collects the members that exited (they are this process's orphans).
func (l *localEtcd) reap() {
	defer l.reaped.Done()
	for {
		for _, pid := range l.pids() {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
		select {
		case <-l.stopReap:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// pids returns the members' current pids.
func (l *localEtcd) pids() []int {
	var out []int
	for _, n := range l.Names {
		if pid, ok := l.pidOf(n); ok {
			out = append(out, pid)
		}
	}
	return out
}

// pidOf returns the pid in member name's pid file.
func (l *localEtcd) pidOf(name string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(l.Dir, name+".pid"))
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil && perr == nil
}

func (l *localEtcd) waitHealthy(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cli := l.client(t)
	defer cli.Close()
	for {
		ok := 0
		for _, u := range l.ClientURLs {
			if s, err := cli.Status(ctx, u); err == nil && s.Leader != 0 {
				ok++
			}
		}
		if ok == len(l.ClientURLs) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("local etcd not healthy: %s", l.logTails())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (l *localEtcd) client(t *testing.T) *clientv3.Client {
	t.Helper()
	cli, err := etcdcli.New(l.ClientURLs...)
	if err != nil {
		t.Fatal(err)
	}
	return cli
}

// leftovers returns how many keys and leases the cluster holds.
func (l *localEtcd) leftovers(t *testing.T) (keys int64, leases int) {
	t.Helper()
	cli := l.client(t)
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := cli.Get(ctx, "\x00", clientv3.WithFromKey(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatalf("counting keys: %v", err)
	}
	ls, err := cli.Leases(ctx)
	if err != nil {
		t.Fatalf("listing leases: %v", err)
	}
	return resp.Count, len(ls.Leases)
}

// logTails returns, for each member, its pid file's pid, whether it runs and
// the end of its log (what a failure message needs once the temp dir is gone).
func (l *localEtcd) logTails() string {
	var b strings.Builder
	for _, n := range l.Names {
		pid, _ := l.pidOf(n)
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		log, _ := os.ReadFile(filepath.Join(l.Dir, n+".log"))
		if len(log) > 1500 {
			log = log[len(log)-1500:]
		}
		fmt.Fprintf(&b, "\n%s: pid %d, stat %.60q, log ends:\n%s", n, pid, st, log)
	}
	return b.String()
}

// running returns the members whose process runs (SIGSTOPped counts): the
// pid file's process, still that member (its command line names it: a pid is
// reused once its process is gone), not a zombie.
func (l *localEtcd) running() []int {
	var out []int
	for _, n := range l.Names {
		pid, ok := l.pidOf(n)
		if !ok {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err == nil && !strings.Contains(string(stat), ") Z ") && strings.Contains(string(cmdline), "\x00--name\x00"+n+"\x00") {
			out = append(out, pid)
		}
	}
	return out
}

// stop kills the members and the proxies, and reaps the members.
func (l *localEtcd) stop() {
	for _, pid := range l.pids() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(l.running()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	close(l.stopReap)
	l.reaped.Wait()
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	_ = l.ctl.Close()
	l.set.Close()
}

func scheme(tls string) string {
	if tls != "" {
		return "https"
	}
	return "http"
}
