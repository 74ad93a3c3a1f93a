package cluster

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"sdchaos/childproc"
)

// Node is one etcd member and its process.
type Node struct {
	c              *Cluster
	initialCluster string
	// Index is the member's position (0-based); Name is "n<Index+1>".
	Index int
	Name  string
	// Host is the address it listens on and advertises (127.0.0.1 unless
	// Config.Hosts says otherwise).
	Host string
	// ClientPort and PeerPort are its ports on Host.
	ClientPort, PeerPort int
	// DataDir holds its WAL and snapshots; LogPath its etcd log.
	DataDir, LogPath string

	mu     sync.Mutex
	child  *childproc.Child
	paused bool
	id     string // raft member id (hex), cached
	ext    *external
}

// ClientURL returns "http://<host>:<client port>" (an attached member's
// URL as listed or named).
func (n *Node) ClientURL() string {
	if n.ext != nil {
		return n.ext.member.ClientURL
	}
	u := memberURL(n.Host, n.ClientPort)
	return u.String()
}

// ClientAddr returns "<host>:<client port>", for a proxy in front of it.
func (n *Node) ClientAddr() string { return net.JoinHostPort(n.Host, strconv.Itoa(n.ClientPort)) }

// Addr returns the member's address (Host parsed).
func (n *Node) Addr() netip.Addr { return netip.MustParseAddr(n.Host) }

func (n *Node) start() error {
	args := nodeArgs{name: n.Name, host: n.Host, dir: n.DataDir, initialCluster: n.initialCluster, token: "sdchaos",
		state: "new", clientPort: n.ClientPort, peerPort: n.PeerPort, tickMs: n.c.cfg.TickMs, electionMs: n.c.cfg.ElectionMs}
	ch, err := n.c.sup.Start(childproc.Spec{Name: "etcd " + n.Name, Command: nodeCommand,
		Args: args.argv(), LogPath: n.LogPath, Control: true})
	if err != nil {
		return fmt.Errorf("starting etcd %s: %w", n.Name, err)
	}
	n.mu.Lock()
	n.child, n.paused = ch, false
	n.mu.Unlock()
	return nil
}

// Child returns the member's current process (nil before start).
func (n *Node) Child() *childproc.Child {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.child
}

// Running reports whether the member's process is alive (paused counts as
// alive); for an attached member, whether no kill is in effect.
func (n *Node) Running() bool {
	if n.ext != nil {
		n.mu.Lock()
		defer n.mu.Unlock()
		return !n.ext.down
	}
	ch := n.Child()
	return ch != nil && !ch.Exited()
}

// Paused reports whether the member is frozen by Pause.
func (n *Node) Paused() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ext != nil {
		return n.ext.paused
	}
	return n.paused
}

// Kill SIGKILLs the member and waits until its process is gone. Killing a
// dead member is a no-op. An attached member is killed by its nemesis.
func (n *Node) Kill() error {
	if n.ext != nil {
		return n.nemesisDo(context.Background(), ActKill, false)
	}
	if ch := n.Child(); ch != nil {
		ch.Kill()
	}
	return nil
}

// Restart starts a killed member again on its data dir and waits until it
// answers on its client port (not for quorum).
func (n *Node) Restart(ctx context.Context) error {
	if n.ext != nil {
		if err := n.nemesisDo(ctx, ActStart, false); err != nil {
			return err
		}
		return n.waitServing(ctx)
	}
	if n.Running() {
		return fmt.Errorf("restarting etcd %s: still running", n.Name)
	}
	if err := n.start(); err != nil {
		return err
	}
	return n.waitServing(ctx)
}

// Pause freezes the member with SIGSTOP (an attached one through its nemesis).
func (n *Node) Pause() error {
	if n.ext != nil {
		return n.nemesisDo(context.Background(), ActPause, false)
	}
	ch := n.Child()
	if ch == nil {
		return fmt.Errorf("pausing etcd %s: not started", n.Name)
	}
	if err := ch.Stop(); err != nil {
		return fmt.Errorf("pausing etcd %s: %w", n.Name, err)
	}
	n.mu.Lock()
	n.paused = true
	n.mu.Unlock()
	return nil
}

// Resume unfreezes a paused member with SIGCONT (an attached one through its nemesis).
func (n *Node) Resume() error {
	if n.ext != nil {
		return n.nemesisDo(context.Background(), ActResume, false)
	}
	ch := n.Child()
	if ch == nil {
		return fmt.Errorf("resuming etcd %s: not started", n.Name)
	}
	if err := ch.Cont(); err != nil {
		return fmt.Errorf("resuming etcd %s: %w", n.Name, err)
	}
	n.mu.Lock()
	n.paused = false
	n.mu.Unlock()
	return nil
}

// Control sends a command to the member process (see control.go).
func (n *Node) Control(cmd string) (string, error) {
	ch := n.Child()
	if ch == nil {
		return "", fmt.Errorf("etcd %s: not started", n.Name)
	}
	return ch.Control(cmd, 5*time.Second)
}
