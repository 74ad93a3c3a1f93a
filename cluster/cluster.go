// Package cluster runs a real etcd cluster on loopback, one OS process per
// member (the harness binary re-executed with a hidden sub-command hosting
// one embed.Etcd), and kills, freezes and restarts its members.
package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"path/filepath"
	"strings"
	"time"

	"sdchaos/childproc"
	"sdchaos/ports"
)

// Config describes a cluster to start.
type Config struct {
	// Size is the number of members (default 3).
	Size int
	// TickMs and ElectionMs are raft's heartbeat and election timeout (etcd
	// defaults 100 and 1000).
	TickMs, ElectionMs uint
	// Keep keeps the data dirs and logs after the run.
	Keep bool
	// Hosts gives each member its own IPv4 address to listen on and
	// advertise (member i gets Hosts[i]); empty means 127.0.0.1 for all. A
	// member whose address is not a loopback one also binds its outgoing
	// peer connections to it (etcd's SetMemberLocalAddr), so packets
	// between members carry both members' addresses (see netns.MemberNet).
	Hosts []string
	// StartTimeout bounds Start's wait for a healthy cluster.
	StartTimeout time.Duration
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
}

// DefaultConfig returns 3 members with etcd's default timing.
func DefaultConfig() Config {
	return Config{Size: 3, TickMs: 100, ElectionMs: 1000, StartTimeout: 30 * time.Second}
}

// Validate reports impossible values.
func (c Config) Validate() error {
	switch {
	case c.Size < 1 || c.Size > 9:
		return fmt.Errorf("cluster size (%d) must be within 1–9", c.Size)
	case c.TickMs == 0 || c.ElectionMs < 5*c.TickMs:
		return fmt.Errorf("election timeout (%d ms) must be at least 5 × heartbeat (%d ms)", c.ElectionMs, c.TickMs)
	case len(c.Hosts) != 0 && len(c.Hosts) != c.Size:
		return fmt.Errorf("member hosts (%d: %v) must be one per member (%d) or none", len(c.Hosts), c.Hosts, c.Size)
	}
	for _, h := range c.Hosts {
		if a, err := netip.ParseAddr(h); err != nil || !a.Is4() {
			return fmt.Errorf("member host %q is not an IPv4 address", h)
		}
	}
	return nil
}

// host returns member i's address.
func (c Config) host(i int) string {
	if len(c.Hosts) == 0 {
		return ports.Host
	}
	return c.Hosts[i]
}

// Cluster is a running etcd cluster. Its methods are safe for concurrent
// use on different members.
type Cluster struct {
	cfg   Config
	sup   *childproc.Supervisor
	Dir   string
	nodes []*Node
	// readerTLS are the TLS files the members' metrics readers use (an
	// attached cluster's; none for one the harness started).
	readerTLS readerArgs
}

// Start allocates ports, starts every member in its own process and waits
// until the cluster is healthy (a leader, every member answering). On error
// every member started so far is killed.
func Start(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, cfg Config) (*Cluster, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dir, err := sup.TempDir("sdchaos-etcd-*", cfg.Keep)
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg, sup: sup, Dir: dir}
	if err := c.allocate(alloc); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	// Members start one after another, each once the previous one serves its
	// peer port: a new member asks its peers whether it is already
	// bootstrapped, and a peer that listens but does not serve yet costs it a
	// full 1 s timeout per peer (2 s of start-up), while a refused or answered
	// request costs nothing.
	for _, n := range c.nodes {
		if err := n.start(); err != nil {
			c.Close()
			return nil, err
		}
		if err := n.waitPeerServing(wctx); err != nil {
			c.Close()
			return nil, fmt.Errorf("waiting for etcd %s (log %s): %w", n.Name, n.LogPath, err)
		}
	}
	if err := c.WaitHealthy(wctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("waiting for a healthy cluster (logs in %s): %w", dir, err)
	}
	return c, nil
}

func (c *Cluster) allocate(alloc *ports.Allocator) error {
	var peers []string
	for i := 0; i < c.cfg.Size; i++ {
		name := fmt.Sprintf("n%d", i+1)
		cp, err := alloc.Take("etcd " + name + " client")
		if err != nil {
			return err
		}
		pp, err := alloc.Take("etcd " + name + " peer")
		if err != nil {
			return err
		}
		host := c.cfg.host(i)
		c.nodes = append(c.nodes, &Node{c: c, Index: i, Name: name, Host: host, ClientPort: cp, PeerPort: pp,
			DataDir: filepath.Join(c.Dir, name), LogPath: filepath.Join(c.Dir, name+".log")})
		u := memberURL(host, pp)
		peers = append(peers, name+"="+u.String())
	}
	for _, n := range c.nodes {
		n.initialCluster = strings.Join(peers, ",")
	}
	return nil
}

// Nodes returns the members, in order n1, n2, ….
func (c *Cluster) Nodes() []*Node { return c.nodes }

// Node returns member i (0-based).
func (c *Cluster) Node(i int) *Node { return c.nodes[i] }

// Size returns the number of members.
func (c *Cluster) Size() int { return len(c.nodes) }

// Endpoints returns every member's client URL.
func (c *Cluster) Endpoints() []string {
	eps := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		eps[i] = n.ClientURL()
	}
	return eps
}

// Close kills every member. Data dirs are removed by the supervisor. An
// attached cluster is left as it is (its nemesis heals what the run did).
func (c *Cluster) Close() {
	for _, n := range c.nodes {
		if n.ext == nil {
			_ = n.Kill()
		}
	}
}

// Attached reports whether the cluster was attached to, not started.
func (c *Cluster) Attached() bool { return len(c.nodes) > 0 && c.nodes[0].ext != nil }
