package etcdexternal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sdchaos/internal/cmdrun"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/childproc"
	"sdchaos/etcdcli"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
)

// hostNet is the test's network of separate hosts: each a network
// namespace of its own, joined by a bridge in the cluster's, on the
// benchmarking range 198.18.0.0/15 (RFC 2544, routed nowhere), which
// exists only inside these namespaces: nothing of the host's network is
// touched.
type hostNet struct {
	t     *testing.T
	names []string // cluster, shard 0, shard 1, …
}

// hostAddr is host i's address: the members are 198.18.7.1–3 on the
// cluster's bridge, shard k is 198.18.7.(11+k).
func hostAddr(i int) string { return "198.18.7." + strconv.Itoa(i) }

// newHostNet makes the cluster's namespace with its bridge and one
// namespace per shard, linked to the bridge by a veth pair created
// straight inside the two namespaces.
func newHostNet(t *testing.T, shards int) *hostNet {
	t.Helper()
	removeStaleHostNets()
	h := &hostNet{t: t}
	t.Cleanup(h.close)
	id := strconv.Itoa(os.Getpid())
	for i := 0; i <= shards; i++ {
		h.names = append(h.names, fmt.Sprintf("sdchaos-%s-%d", id, i))
		h.ip("netns", "add", h.names[i])
		h.ip("-n", h.names[i], "link", "set", "lo", "up")
	}
	cl := h.names[0]
	h.ip("-n", cl, "link", "add", "br0", "type", "bridge")
	for m := 1; m <= 3; m++ {
		h.ip("-n", cl, "addr", "add", hostAddr(m)+"/24", "dev", "br0")
	}
	h.ip("-n", cl, "link", "set", "br0", "up")
	for k := 0; k < shards; k++ {
		ns, eth, port := h.names[k+1], "eth0", fmt.Sprintf("s%d", k)
		h.ip("link", "add", "name", eth, "netns", ns, "type", "veth", "peer", "name", port, "netns", cl)
		h.ip("-n", cl, "link", "set", port, "master", "br0", "up")
		h.ip("-n", ns, "addr", "add", hostAddr(11+k)+"/24", "dev", eth)
		h.ip("-n", ns, "link", "set", eth, "up")
	}
	return h
}

func (h *hostNet) ip(args ...string) {
	h.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		h.t.Fatalf("ip %s: %v %s", strings.Join(args, " "), err, out)
	}
}

// command runs name in host i's namespace; it dies with the test process
// (ip netns exec executes it in its own process, parent-death signal kept).
func (h *hostNet) command(i int, name string, args ...string) *exec.Cmd {
	cmd := exec.Command("ip", append([]string{"netns", "exec", h.names[i], name}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// removeStaleHostNets deletes the named namespaces of test processes that are gone: a named
// namespace outlives its processes, and one SIGKILLed (go test's timeout, a user's kill -9)
// could not run its clean-up.
func removeStaleHostNets() {
	entries, _ := os.ReadDir("/run/netns")
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "sdchaos-")
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if ok && err == nil && pid > 0 && pid != os.Getpid() && !childproc.Alive(pid) {
			_ = exec.Command("ip", "netns", "del", e.Name()).Run()
		}
	}
}

// close deletes the namespaces (their links and addresses go with them).
func (h *hostNet) close() {
	for _, n := range h.names {
		_ = exec.Command("ip", "netns", "del", n).Run()
	}
}

// TestShardsOnSeparateHosts is the storm split over hosts, on one machine:
// the cluster (etcd's own binary, three members) in one network namespace
// and each of two shards in its own, with an address of its own; each
// shard attaches to the members' addresses (--endpoints, --allow-remote),
// shard 0 reads the members' /metrics and runs the timeline, and the two
// histories merge into one judged run with the whole fleet listed and back,
// every check judged, and nothing left on the cluster.
func TestShardsOnSeparateHosts(t *testing.T) {
	switch {
	case testing.Short():
		t.Skip("builds etcd and runs real processes in network namespaces")
	case os.Geteuid() != 0:
		t.Skip("network namespaces and veth pairs need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skipf("needs iproute2's ip: %v", err)
	}
	bin := buildUpstreamEtcd(t) // before the lock: a build is not timed
	lockPackage(t)
	h := newHostNet(t, 2)
	eps := startHostEtcd(t, h, bin)
	args := append(stormArgs, "--endpoints", strings.Join(eps, ","), "--allow-remote", "--retry-invalid", "0", "--format", "json")
	for range 3 {
		merged, err := runHostShards(t, h, args)
		left := hostLeftoversAfterTTL(t, h, eps)
		if left != "keys 0 leases 0" {
			t.Errorf("left on the cluster after the shards: %s", left)
		}
		if errors.Is(err, errInvalid) {
			t.Logf("invalid merged run: %s", scentest.InvalidWhy(merged))
			continue
		}
		if err != nil && !errors.Is(err, errNotReproduced) {
			t.Fatalf("merge: %v; checks %s", err, scentest.Names(merged))
		}
		checkMergedFleet(t, merged)
		return
	}
	t.Skip("three invalid merged runs: the machine starved the shards")
}

// startHostEtcd starts three members of bin in the cluster's namespace,
// member i on hostAddr(i), and returns their client URLs.
func startHostEtcd(t *testing.T, h *hostNet, bin string) []string {
	t.Helper()
	dir := t.TempDir()
	var initial, eps []string
	for i := 1; i <= 3; i++ {
		initial = append(initial, fmt.Sprintf("m%d=http://%s:13402", i, hostAddr(i)))
		eps = append(eps, fmt.Sprintf("http://%s:13401", hostAddr(i)))
	}
	for i := 1; i <= 3; i++ {
		cmd := h.command(0, bin, "--name", fmt.Sprintf("m%d", i), "--data-dir", filepath.Join(dir, strconv.Itoa(i)),
			"--listen-client-urls", eps[i-1], "--advertise-client-urls", eps[i-1],
			"--listen-peer-urls", fmt.Sprintf("http://%s:13402", hostAddr(i)), "--initial-advertise-peer-urls", fmt.Sprintf("http://%s:13402", hostAddr(i)),
			"--initial-cluster", strings.Join(initial, ","), "--initial-cluster-token", "hosts", "--initial-cluster-state", "new")
		logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("m%d.log", i)))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); logf.Close() })
	}
	if got := hostLeftovers(t, h, eps); got != "keys 0 leases 0" {
		t.Fatalf("a fresh cluster holds %s", got)
	}
	return eps
}

// runHostShards runs shards 0/2 and 1/2 of the storm, each in its own
// host's namespace, and merges their histories.
func runHostShards(t *testing.T, h *hostNet, args []string) (*report.Result, error) {
	t.Helper()
	exe := cmdrun.Exe
	start := time.Now().Add(5 * time.Second).UTC().Format(time.RFC3339Nano)
	var dirs []string
	var cmds []*exec.Cmd
	for k := range 2 {
		dirs = append(dirs, t.TempDir())
		cmd := h.command(1+k, exe, append(args, "--start-at", start, "--shard", fmt.Sprintf("%d/2", k), "--port-base", "13500",
			"--out", dirs[k])...)
		cmd.Env = os.Environ()
		cmd.Stderr = &strings.Builder{}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for k, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d/2 on host %s: %v\n%s", k, hostAddr(11+k), err, c.Stderr)
		}
		t.Logf("shard %d/2 on host %s:\n%s", k, hostAddr(11+k), c.Stderr)
	}
	return mergeDirs(t, dirs)
}

// checkMergedFleet wants the whole fleet listed and back in both phases,
// every check judged, the registry's side read.
func checkMergedFleet(t *testing.T, merged *report.Result) {
	t.Helper()
	for _, k := range []string{"immediate.registered", "jitter.registered", "immediate.listed_at_loss", "jitter.listed_at_loss"} {
		if merged.Metrics[k] != 1000 {
			t.Errorf("%s = %g, want 1000", k, merged.Metrics[k])
		}
	}
	for _, c := range merged.Checks {
		if c.Verdict == report.Invalid {
			t.Errorf("%s: invalid (%s)", c.Name, c.Cause)
		}
		t.Logf("%-60s %-30s %s", c.Name, c.MeasuredText, c.Verdict)
	}
	for _, k := range []string{"immediate.registry.peak_per_100ms", "jitter.registry.peak_per_100ms", "immediate.registry.requests"} {
		if merged.Metrics[k] <= 0 {
			t.Errorf("%s = %g: the registry's side was not read", k, merged.Metrics[k])
		}
	}
}

// envLeftovers makes the test binary count the keys and leases of the
// cluster at the given endpoints (once all answer with a leader) and print
// "keys N leases M": the test runs it inside the cluster's namespace.
const envLeftovers = "SDCHAOS_TEST_LEFTOVERS"

// hostLeftovers counts what the cluster holds, from inside its namespace.
// orphanGrantTTL bounds how long a lease the harness never learned of can
// live: a Grant the server made while its answer missed the client's
// deadline (a starved shard) is revoked by no one and expires on its own,
// one --ttl (stormArgs: 3 s) after it was granted; 2 s more for the
// leader's expiry check and the read.
const orphanGrantTTL = 3*time.Second + 2*time.Second

// hostLeftoversAfterTTL reads what the run left on the cluster until
// nothing is, or orphanGrantTTL passed: what remains then is a leftover.
func hostLeftoversAfterTTL(t *testing.T, h *hostNet, eps []string) string {
	t.Helper()
	deadline := time.Now().Add(orphanGrantTTL)
	for {
		left := hostLeftovers(t, h, eps)
		if left == "keys 0 leases 0" || time.Now().After(deadline) {
			return left
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func hostLeftovers(t *testing.T, h *hostNet, eps []string) string {
	t.Helper()
	exe, _ := os.Executable()
	cmd := h.command(0, exe)
	cmd.Env = append(os.Environ(), envLeftovers+"="+strings.Join(eps, ","))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("counting the cluster's keys and leases: %v %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// printLeftovers is the test binary's work under envLeftovers.
func printLeftovers(eps string) int {
	cli, err := etcdcli.New(strings.Split(eps, ",")...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, ep := range cli.Endpoints() {
		for {
			if s, err := cli.Status(ctx, ep); err == nil && s.Leader != 0 {
				break
			}
			if ctx.Err() != nil {
				fmt.Fprintf(os.Stderr, "%s has no leader\n", ep)
				return 1
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	keys, err := cli.Get(ctx, "\x00", clientv3.WithFromKey(), clientv3.WithCountOnly())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	leases, err := cli.Leases(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("keys %d leases %d\n", keys.Count, len(leases.Leases))
	return 0
}
