package zookeeper

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"sdchaos/childproc"
	"sdchaos/clock"
	"sdchaos/jvm"
	"sdchaos/linkproxy"
	"sdchaos/ports"
)

// Ensemble is a running ZooKeeper ensemble: started by the harness (Start) or
// attached to (Attach). Everything the run writes lives under Chroot.
type Ensemble struct {
	members []*Member
	chroot  string
	// StartTime is how long the members took from launch until the quorum
	// formed (0 when attached); BuildTime how long finding (or building) the
	// server jar took.
	StartTime, BuildTime time.Duration
	// Dir holds the members' dirs ("" when attached).
	Dir string
	cfg Config
	// clients are the proxies in front of the members' client ports (nil
	// without Config.ClientLinks), in member order; peers the peer links
	// (nil without Config.PeerLinks).
	clients []*linkproxy.Proxy
	peers   *peerNet
}

// Start builds the server jar if needed, starts cfg.Size members under sup on
// ports from alloc (three each: client, quorum, election), waits until a
// quorum has formed (one leader, every other member following, as the members'
// srvr and mntr answers say) and creates the run's chroot. The supervisor owns
// the JVMs and the ensemble's dir.
func Start(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, cfg Config) (*Ensemble, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("zookeeper config: %w", err)
	}
	t0 := time.Now()
	jar, err := jvm.Build(ctx, jvm.ZooKeeperServer, cfg.Logf)
	if err != nil {
		return nil, fmt.Errorf("starting zookeeper: %w", err)
	}
	java, err := jvm.Java()
	if err != nil {
		return nil, fmt.Errorf("starting zookeeper: %w", err)
	}
	e := &Ensemble{cfg: cfg, BuildTime: time.Since(t0)}
	all, err := allocate(alloc, cfg)
	if err != nil {
		return nil, err
	}
	if e.Dir, err = sup.TempDir("sdchaos-zookeeper-*", cfg.Keep); err != nil {
		return nil, fmt.Errorf("creating the zookeeper dir: %w", err)
	}
	if cfg.Keep {
		cfg.Logf("zookeeper: keeping %s", e.Dir)
	}
	if err := e.prepareAll(sup, alloc, java, jar, all); err != nil {
		e.closeLinks()
		return nil, err
	}
	if err := e.launch(ctx); err != nil {
		e.closeLinks()
		return nil, err
	}
	if err := e.makeChroot(ctx); err != nil {
		return nil, err
	}
	cfg.Logf("zookeeper: %d members, quorum formed %.1f s after launch (jar ready in %.1f s); chroot %s",
		len(e.members), e.StartTime.Seconds(), e.BuildTime.Seconds(), e.chroot)
	return e, nil
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Size == 0 {
		c.Size = d.Size
	}
	if c.TickTime == 0 {
		c.TickTime = d.TickTime
	}
	if c.InitLimit == 0 {
		c.InitLimit = d.InitLimit
	}
	if c.SyncLimit == 0 {
		c.SyncLimit = d.SyncLimit
	}
	if c.HeapMB == 0 {
		c.HeapMB = d.HeapMB
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = d.ReadyTimeout
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return c
}

// allocate takes each member's three ports.
func allocate(alloc *ports.Allocator, cfg Config) ([]ServerPorts, error) {
	out := make([]ServerPorts, cfg.Size)
	for i := range out {
		out[i].ID = i + 1
		name := memberName(cfg.Label, i+1)
		for _, p := range []struct {
			dst  *int
			what string
		}{{&out[i].Client, "client"}, {&out[i].Quorum, "quorum"}, {&out[i].Election, "election"}} {
			port, err := alloc.Take("zookeeper " + name + " " + p.what)
			if err != nil {
				return nil, err
			}
			*p.dst = port
		}
	}
	return out, nil
}

func memberName(label string, id int) string {
	name := "zk" + strconv.Itoa(id)
	if label != "" {
		name = label + "-" + name
	}
	return name
}

// prepareAll starts the links the config asks for and writes every
// member's zoo.cfg (with its view of the peers: their ports, or its links).
func (e *Ensemble) prepareAll(sup *childproc.Supervisor, alloc *ports.Allocator, java, jar string, all []ServerPorts) error {
	if e.cfg.PeerLinks {
		n, err := newPeerNet(alloc, e.cfg.Label, all)
		if err != nil {
			return err
		}
		e.peers = n
	}
	for _, p := range all {
		view := all
		if e.peers != nil {
			view = e.peers.views[p.ID]
		}
		m, err := prepare(sup, e.cfg, java, jar, e.Dir, p, view)
		if err != nil {
			return err
		}
		e.members = append(e.members, m)
	}
	if e.cfg.ClientLinks {
		return e.linkClients(alloc)
	}
	return nil
}

// linkClients puts a proxy in front of every member's client port.
func (e *Ensemble) linkClients(alloc *ports.Allocator) error {
	for _, m := range e.members {
		port, err := alloc.Take("zookeeper " + m.Name + " client link")
		if err != nil {
			return err
		}
		p, err := linkproxy.New(ports.Addr(port), m.ClientAddr())
		if err != nil {
			return fmt.Errorf("zookeeper %s client link: %w", m.Name, err)
		}
		e.clients = append(e.clients, p)
	}
	return nil
}

// closeLinks closes every proxy of the ensemble.
func (e *Ensemble) closeLinks() {
	for _, p := range e.clients {
		_ = p.Close()
	}
	e.clients = nil
	if e.peers != nil {
		e.peers.close()
		e.peers = nil
	}
}

// DefaultJVMOptions keep each member small (three members and the callers fit
// on two cores).
var DefaultJVMOptions = []string{"-Xms16m", "-Xss256k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
	"-XX:MaxMetaspaceSize=96m", "-XX:ReservedCodeCacheSize=32m", "-Djava.awt.headless=true"}

// prepare writes member p's zoo.cfg (with view as its server lines) and myid
// and returns the member with its launcher.
func prepare(sup *childproc.Supervisor, cfg Config, java, jar, root string, p ServerPorts, view []ServerPorts) (*Member, error) {
	name := memberName(cfg.Label, p.ID)
	m := &Member{Name: name, ID: p.ID, Host: ports.Host, Ports: p, Dir: filepath.Join(root, name)}
	m.LogPath = filepath.Join(m.Dir, name+".log")
	data := filepath.Join(m.Dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, fmt.Errorf("zookeeper %s: %w", name, err)
	}
	if err := os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(p.ID)+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("zookeeper %s: writing myid: %w", name, err)
	}
	zooCfg := filepath.Join(m.Dir, "zoo.cfg")
	if err := os.WriteFile(zooCfg, []byte(RenderZooCfg(cfg, data, p, view)), 0o644); err != nil {
		return nil, fmt.Errorf("zookeeper %s: writing zoo.cfg: %w", name, err)
	}
	opts, err := jvm.ChildOptions(filepath.Join(m.Dir, "tmp"))
	if err != nil {
		return nil, fmt.Errorf("zookeeper %s: %w", name, err)
	}
	args := append(append(opts, DefaultJVMOptions...), "-Xmx"+strconv.Itoa(cfg.HeapMB)+"m", "-jar", jar, zooCfg)
	m.launch = func() (*childproc.Child, error) {
		c, _, err := sup.StartExternal(childproc.ExternalSpec{Name: "zookeeper " + name, Path: java, Args: args,
			Env: []string{"MALLOC_ARENA_MAX=2"}, LogPath: m.LogPath, StdoutToLog: true})
		return c, err
	}
	return m, nil
}

// launch starts every member and waits for the quorum.
func (e *Ensemble) launch(ctx context.Context) error {
	t0 := time.Now()
	for _, m := range e.members {
		if err := m.start("start"); err != nil {
			return err
		}
	}
	e.cfg.Logf("zookeeper: %d members launched, waiting for a quorum", len(e.members))
	if _, err := e.WaitQuorum(ctx, e.cfg.ReadyTimeout); err != nil {
		return err
	}
	e.StartTime = time.Since(t0)
	return nil
}

// WaitQuorum polls every member's state until a quorum has formed (Quorum) and
// returns the leader, or an error naming each member's last state once timeout
// has passed or a started member's JVM has exited.
func (e *Ensemble) WaitQuorum(ctx context.Context, timeout time.Duration) (*Member, error) {
	return e.waitQuorumOf(ctx, e.members, timeout)
}

// waitQuorumOf is WaitQuorum over some members only (the live ones after a kill).
func (e *Ensemble) waitQuorumOf(ctx context.Context, members []*Member, timeout time.Duration) (*Member, error) {
	deadline := time.Now().Add(timeout)
	for {
		states := e.statesOf(ctx, members)
		if Quorum(states) {
			for i, s := range states {
				if s.Mode == ModeLeader {
					return members[i], nil
				}
			}
		}
		if dead := exited(members); dead != nil || time.Now().After(deadline) {
			return nil, e.noQuorum(states, dead, timeout)
		}
		if err := clock.SleepFor(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

func exited(members []*Member) *Member {
	for _, m := range members {
		if m.Started() && !m.Alive() {
			return m
		}
	}
	return nil
}

func (e *Ensemble) noQuorum(states []State, dead *Member, timeout time.Duration) error {
	var parts []string
	for _, s := range states {
		parts = append(parts, s.Member+"="+string(s.Mode))
	}
	if dead != nil {
		return fmt.Errorf("zookeeper %s exited before a quorum formed (%s); its log %s ends:%s",
			dead.Name, strings.Join(parts, " "), dead.LogPath, logTail(dead.LogPath))
	}
	return fmt.Errorf("zookeeper: no quorum within %s (%s)", timeout, strings.Join(parts, " "))
}

// States reads every member's state (unreachable ones as ModeUnreachable).
func (e *Ensemble) States(ctx context.Context) []State { return e.statesOf(ctx, e.members) }

func (e *Ensemble) statesOf(ctx context.Context, members []*Member) []State {
	out := make([]State, len(members))
	done := make(chan struct{}, len(members))
	for i, m := range members {
		go func() {
			out[i], _ = m.State(ctx)
			done <- struct{}{}
		}()
	}
	for range members {
		<-done
	}
	return out
}

// Leader returns the member whose srvr says it leads, or nil when none does.
func (e *Ensemble) Leader(ctx context.Context) *Member {
	for i, s := range e.States(ctx) {
		if s.Mode == ModeLeader {
			return e.members[i]
		}
	}
	return nil
}

// Members returns the members in myid order.
func (e *Ensemble) Members() []*Member { return append([]*Member(nil), e.members...) }

// Member returns the member named name, or nil.
func (e *Ensemble) Member(name string) *Member {
	for _, m := range e.members {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// ClientServers returns the addresses the run's clients connect to: the
// client links when the ensemble has them, else the members' client
// addresses.
func (e *Ensemble) ClientServers() []string {
	if len(e.clients) == 0 {
		return e.Servers()
	}
	out := make([]string, len(e.clients))
	for i, p := range e.clients {
		out[i] = p.Addr()
	}
	return out
}

// ClientLinks returns the proxies in front of the members' client ports, in
// member order (nil without client links).
func (e *Ensemble) ClientLinks() []*linkproxy.Proxy {
	return append([]*linkproxy.Proxy(nil), e.clients...)
}

// PeerLinksOf returns the peer links to and from m (nil without peer links).
func (e *Ensemble) PeerLinksOf(m *Member) []PeerLink {
	if e.peers == nil {
		return nil
	}
	return e.peers.of(m.Name)
}

// PeerPorts returns the ports every packet between m and its peers uses on
// one of its ends: m's own quorum and election ports (its peers' links
// dial them) and the ports of the links m dials. Nil without peer links.
func (e *Ensemble) PeerPorts(m *Member) []int {
	if e.peers == nil {
		return nil
	}
	out := []int{m.Ports.Quorum, m.Ports.Election}
	for _, l := range e.peers.outbound(m.Name) {
		out = append(out, l.QuorumPort, l.ElectionPort)
	}
	return out
}

// Servers returns every member's client address (the harness's own
// connections: the chroot, the probes).
func (e *Ensemble) Servers() []string {
	out := make([]string, len(e.members))
	for i, m := range e.members {
		out[i] = m.ClientAddr()
	}
	return out
}

// Chroot returns the run's root node ("/sdchaos-<hex>"): every client of the
// run works below it.
func (e *Ensemble) Chroot() string { return e.chroot }

// ConnectString returns the ZooKeeper connect string of the run's clients:
// every member's client address (or its client link) and the chroot
// ("h:p,h:p,h:p/sdchaos-…"), for a Java client.
func (e *Ensemble) ConnectString() string { return strings.Join(e.ClientServers(), ",") + e.chroot }

// Config returns the configuration the ensemble was started with (zero when
// attached).
func (e *Ensemble) Config() Config { return e.cfg }

// makeChroot creates a fresh "/sdchaos-<random>" node.
func (e *Ensemble) makeChroot(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return e.makeChrootUnder(ctx, "")
}

// makeChrootUnder creates a fresh "<base>/sdchaos-<random>" node (base must
// exist).
func (e *Ensemble) makeChrootUnder(ctx context.Context, base string) error {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("zookeeper: naming the chroot: %w", err)
	}
	chroot := base + "/sdchaos-" + hex.EncodeToString(b[:])
	conn, events, err := dial(ctx, e.Servers(), 10*time.Second, nil)
	if err != nil {
		return fmt.Errorf("zookeeper: creating the chroot: %w", err)
	}
	defer conn.Close()
	drain(events)
	err = within(ctx, "creating "+chroot, func() error {
		_, err := conn.Create(chroot, nil, 0, zk.WorldACL(zk.PermAll))
		return err
	})
	if err != nil {
		return fmt.Errorf("zookeeper: creating the chroot: %w", err)
	}
	e.chroot = chroot
	return nil
}

// Close removes the run's chroot and everything below it, then kills the
// members the harness started. Closing an attached ensemble whose quorum is
// gone fails to remove the chroot (the error says so); an ensemble the harness
// started and whose members are all dead is left as it is (its data goes with
// the supervisor's temp dir).
func (e *Ensemble) Close() error {
	var err error
	if e.anyAliveOrAttached() {
		err = e.removeChroot()
	}
	for _, m := range e.members {
		if m.Alive() {
			_ = m.Kill()
		}
	}
	e.closeLinks()
	return err
}

func (e *Ensemble) anyAliveOrAttached() bool {
	for _, m := range e.members {
		if !m.Started() || m.Alive() {
			return true
		}
	}
	return false
}

func (e *Ensemble) removeChroot() error {
	if e.chroot == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, events, err := dial(ctx, e.Servers(), 10*time.Second, nil)
	if err != nil {
		return fmt.Errorf("zookeeper: removing the chroot %s: %w", e.chroot, err)
	}
	defer conn.Close()
	drain(events)
	if err := deleteTree(ctx, conn, e.chroot); err != nil {
		return fmt.Errorf("zookeeper: removing the chroot %s: %w", e.chroot, err)
	}
	left, err := exists(ctx, conn, e.chroot)
	if err == nil && left {
		err = errors.New("still there after its removal")
	}
	if err != nil {
		return fmt.Errorf("zookeeper: checking the chroot %s is gone: %w", e.chroot, err)
	}
	e.chroot = ""
	return nil
}

// logTail returns the last lines of a log, for errors.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return " (unreadable)"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return "\n  " + strings.Join(lines[max(0, len(lines)-8):], "\n  ")
}
