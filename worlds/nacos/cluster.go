package nacos

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"sdchaos/childproc"
	"sdchaos/ports"
	"sdchaos/procstat"
)

// FunctionMode says which Nacos modules a member runs (nacos.functionMode, the distribution's
// `startup.sh -f`; sys EnvUtil.FUNCTION_MODE_NAMING / FUNCTION_MODE_CONFIG).
type FunctionMode string

const (
	// AllModules runs naming and config (Nacos's default, what StartServer runs).
	AllModules FunctionMode = ""
	// NamingOnly runs service discovery without the config module (and its embedded config
	// store): the incident uses discovery only.
	NamingOnly FunctionMode = "naming"
)

// ClusterSpec describes a Nacos cluster of Size members, each its own JVM.
type ClusterSpec struct {
	// Member holds every member's JVM settings (HeapMB, QuickJIT, KeepHome, Props, Logf);
	// Member.Name prefixes the members' names (nacos1, nacos2, …) and Member.ReadyTimeout bounds
	// each member's wait for its own readiness endpoint.
	Member ServerSpec
	// Size is the number of members (3 for the incident).
	Size int
	// Hosts are the members' addresses, one per member; nil puts every member on 127.0.0.1
	// (its ports tell the members apart). In a private network namespace (package netns) give
	// netns.MemberHosts(Size), so that a packet names the member it goes to or comes from.
	Hosts []string
	// Mode picks the modules every member runs.
	Mode FunctionMode
	// DataWarmup sets nacos.naming.data.warmup: naming reports UP only once JRaft has its
	// leaders and Distro has loaded its snapshot (ServerStatusManager.isReady), so the
	// readiness endpoint and NamingStatus show Distro's state. Off (Nacos's default), naming
	// is UP from the start and no API tells whether Distro has loaded.
	DataWarmup bool
	// DistroLoadRetry sets nacos.core.protocol.distro.data.load.retryDelayMs: how long a
	// member whose Distro snapshot load failed (its peers not up yet) waits to try again
	// (DistroConstants default 30 s). Zero keeps Nacos's default.
	DistroLoadRetry time.Duration
	// CDS runs each JVM on an AppCDS archive of the server's classes (made once per built
	// jar and Java runtime, beside the jar; see jvm.Extracted).
	CDS bool
	// ReadyTimeout bounds the wait, after every member is ready, for every member to see every
	// member UP (and, with DataWarmup, naming UP).
	ReadyTimeout time.Duration
	// PeerLinks routes every member's cluster gRPC traffic to each peer through a proxy of its
	// own (cluster_peers.go), so that CutMember can cut a member off from its peers; each proxy
	// listens on its peer's address (Hosts, or 127.0.0.1).
	PeerLinks bool
}

// DefaultClusterSpec returns three members, naming only, Distro observable (DataWarmup), a 1 s
// Distro load retry, CDS and C1-only JIT: the settings that bring the start down on two
// cores (docs/nacos-real.md, "A three-node cluster"). Each member may take 8 minutes to be
// ready: three JVMs share the cores, and under other load one start took over 3.
func DefaultClusterSpec() ClusterSpec {
	m := DefaultServerSpec()
	m.QuickJIT, m.ReadyTimeout = true, 8*time.Minute
	return ClusterSpec{Member: m, Size: 3, Mode: NamingOnly, DataWarmup: true, DistroLoadRetry: time.Second,
		CDS: true, ReadyTimeout: 3 * time.Minute}
}

// Validate reports the first setting out of range, quoting it.
func (s ClusterSpec) Validate() error {
	if err := s.Member.Validate(); err != nil {
		return err
	}
	switch {
	case s.Size < 1 || s.Size > 9:
		return fmt.Errorf("ClusterSpec.Size (%d) must be within [1, 9]", s.Size)
	case s.Hosts != nil && len(s.Hosts) != s.Size:
		return fmt.Errorf("ClusterSpec.Hosts has %d addresses for %d members", len(s.Hosts), s.Size)
	case s.Mode != AllModules && s.Mode != NamingOnly:
		return fmt.Errorf("ClusterSpec.Mode %q: want %q or %q", s.Mode, AllModules, NamingOnly)
	case s.DistroLoadRetry < 0:
		return fmt.Errorf("ClusterSpec.DistroLoadRetry (%s) must not be negative", s.DistroLoadRetry)
	case s.ReadyTimeout <= 0:
		return fmt.Errorf("ClusterSpec.ReadyTimeout (%s) must be positive", s.ReadyTimeout)
	}
	for i, h := range s.Hosts {
		if ip := net.ParseIP(h); ip == nil || ip.To4() == nil {
			return fmt.Errorf("ClusterSpec.Hosts[%d] %q is not an IPv4 address", i, h)
		}
	}
	return nil
}

// hosts returns the members' addresses.
func (s ClusterSpec) hosts() []string {
	if s.Hosts != nil {
		return s.Hosts
	}
	h := make([]string, s.Size)
	for i := range h {
		h[i] = ports.Host
	}
	return h
}

// Cluster is a running Nacos cluster.
type Cluster struct {
	spec    ClusterSpec
	members []*Member
	timing  ClusterTiming
	// peers are the peer links (spec.PeerLinks), open until KillAll.
	peers []PeerLink
}

// ClusterTiming is what a start cost, measured by StartCluster.
type ClusterTiming struct {
	// Prepare is the build lookup, the extract and (first use of a jar only) the CDS archive.
	Prepare time.Duration
	// Members is, per member, the time from its launch to its readiness endpoint's "ok".
	Members []time.Duration
	// Serving is the time from the first launch to the cluster's readiness (ClusterState.Ready).
	Serving time.Duration
	// CPU is, per member, the CPU time (user + system) its JVM had used when the cluster was
	// serving: the start's cost apart from how many cores it got.
	CPU []time.Duration
}

// StartCluster builds the server's jar if needed, prepares its CDS archive when spec.CDS,
// writes every member's nacos.home (a temp dir of sup) with conf/cluster.conf, launches the
// members at once, waits for each member's readiness endpoint and then for the cluster's
// readiness (every member sees every member UP and, with DataWarmup, naming UP). Main ports
// come from alloc: PortSpan(Size) consecutive ports, members MemberPortStride apart; every
// derived port is checked free on its member's host. On error nothing it started is left.
func StartCluster(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, spec ClusterSpec) (*Cluster, error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("starting the Nacos cluster: %w", err)
	}
	t0 := time.Now()
	run, err := prepareRun(ctx, sup, alloc, spec)
	if err != nil {
		return nil, fmt.Errorf("starting the Nacos cluster: %w", err)
	}
	c := &Cluster{spec: spec, timing: ClusterTiming{Prepare: time.Since(t0)}}
	if c.members, err = newMembers(sup, spec, run); err != nil {
		return nil, fmt.Errorf("starting the Nacos cluster: %w", err)
	}
	if spec.PeerLinks {
		if c.peers, err = openPeerLinks(c.members); err != nil {
			return nil, fmt.Errorf("starting the Nacos cluster: %w", err)
		}
	}
	launched := time.Now()
	err = c.launchAll(ctx)
	if err == nil {
		err = c.AwaitReady(ctx, spec.ReadyTimeout)
	}
	c.timing.Serving, c.timing.CPU = time.Since(launched), c.cpuTimes()
	if err != nil {
		c.KillAll()
		return nil, fmt.Errorf("starting the Nacos cluster (gave up %.0f s after the launch; the JVMs had used %v of CPU): %w",
			c.timing.Serving.Seconds(), c.timing.CPU, err)
	}
	return c, nil
}

// cpuTimes returns each member's JVM CPU time so far (zero for one not running).
func (c *Cluster) cpuTimes() []time.Duration {
	out := make([]time.Duration, len(c.members))
	for i, m := range c.members {
		if st, err := procstat.Read(m.Pid()); err == nil && m.Pid() != 0 {
			out[i] = st.CPU
		}
	}
	return out
}

// launchAll launches every member at once and waits for each one's readiness endpoint.
func (c *Cluster) launchAll(ctx context.Context) error {
	errs := make([]error, len(c.members))
	var wg sync.WaitGroup
	for i, m := range c.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = m.start(ctx)
		}()
	}
	wg.Wait()
	c.timing.Members = make([]time.Duration, len(c.members))
	for i, m := range c.members {
		if m.Server() != nil {
			c.timing.Members[i] = m.Server().StartupTime()
		}
	}
	return errors.Join(errs...)
}

// Members returns the members in cluster.conf order.
func (c *Cluster) Members() []*Member { return c.members }

// Member returns member i (0-based).
func (c *Cluster) Member(i int) *Member { return c.members[i] }

// Addrs returns every member's HTTP address, host:main port, in order: a client's server list.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.members))
	for i, m := range c.members {
		out[i] = m.Addr()
	}
	return out
}

// Timing returns what the start cost.
func (c *Cluster) Timing() ClusterTiming { return c.timing }

// KillAll SIGKILLs every member still running (Supervisor.Close does it too), then closes the
// peer links.
func (c *Cluster) KillAll() {
	for _, m := range c.members {
		m.Kill()
	}
	closePeerLinks(c.peers)
}

// newMembers takes the ports, checks them and writes every member's nacos.home.
func newMembers(sup *childproc.Supervisor, spec ClusterSpec, run runFiles) ([]*Member, error) {
	hosts := spec.hosts()
	plan, err := takePorts(run.alloc, spec.Member.Name, spec.Size, hosts)
	if err != nil {
		return nil, err
	}
	conf, err := ClusterConf(hosts, plan)
	if err != nil {
		return nil, err
	}
	members := make([]*Member, spec.Size)
	for i := range members {
		m := &Member{name: fmt.Sprintf("%s%d", spec.Member.Name, i+1), index: i, host: hosts[i], ports: plan[i],
			spec: spec, run: run, sup: sup}
		if m.home, err = sup.TempDir("sdchaos-nacos-"+m.name+"-*", spec.Member.KeepHome); err != nil {
			return nil, err
		}
		if err := writeClusterConf(m.home, conf); err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		members[i] = m
	}
	return members, nil
}

// takePorts takes PortSpan(n) ports from alloc and checks each member's ports on its host.
func takePorts(alloc *ports.Allocator, name string, n int, hosts []string) ([]MemberPorts, error) {
	var first int
	for i := range PortSpan(n) {
		p, err := alloc.Take(fmt.Sprintf("%s cluster port %d of %d", name, i+1, PortSpan(n)))
		if err != nil {
			return nil, err
		}
		if i == 0 {
			first = p
		}
	}
	plan, err := PlanPorts(first, n)
	if err != nil {
		return nil, err
	}
	for i, mp := range plan {
		for _, p := range mp.All() {
			if err := checkFreeOn(hosts[i], p); err != nil {
				return nil, fmt.Errorf("%s%d: %w", name, i+1, err)
			}
		}
	}
	return plan, nil
}

// writeClusterConf writes home/conf/cluster.conf, where Nacos looks for it
// (EnvUtil.getClusterConfFilePath: nacos.home/conf/cluster.conf).
func writeClusterConf(home, conf string) error {
	dir := filepath.Join(home, "conf")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing cluster.conf: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cluster.conf"), []byte(conf), 0o644); err != nil {
		return fmt.Errorf("writing cluster.conf: %w", err)
	}
	return nil
}
