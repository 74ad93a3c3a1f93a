package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/childproc"
)

// Action is a process-level action on a member the harness did not start,
// performed by a Nemesis.
type Action string

// The actions a nemesis may define. Start, Resume and Heal undo Kill, Pause
// and Isolate.
const (
	ActKill    Action = "kill"
	ActStart   Action = "start"
	ActPause   Action = "pause"
	ActResume  Action = "resume"
	ActIsolate Action = "isolate"
	ActHeal    Action = "heal"
)

// Actions lists every action, in the order above.
var Actions = []Action{ActKill, ActStart, ActPause, ActResume, ActIsolate, ActHeal}

// Healing reports whether a undoes another action (start, resume, heal).
func (a Action) Healing() bool { return a == ActStart || a == ActResume || a == ActHeal }

// Member describes an attached member to a nemesis.
type Member struct {
	// Name and ID (hex) are the member's as etcd knows them.
	Name, ID string
	// ClientURL and PeerURL are its first client and peer URLs.
	ClientURL, PeerURL string
}

// Request is one action on one member; OneWay applies to isolate and heal
// (only the member's own side is cut).
type Request struct {
	Action Action
	Member Member
	OneWay bool
}

// Nemesis performs actions on members the harness did not start (a command
// per action; see package nemesis). Do runs one action and returns what it
// printed; an error means the action did not take effect.
type Nemesis interface {
	Do(ctx context.Context, r Request) (string, error)
}

// ErrNoNemesis is returned by a member fault on an attached cluster that has
// no nemesis, or whose nemesis does not define the action.
var ErrNoNemesis = errors.New("no nemesis action")

// external is the state of an attached member.
type external struct {
	nem          Nemesis
	member       Member
	down, paused bool
}

// AttachConfig describes an existing cluster to attach to.
type AttachConfig struct {
	// Endpoints are client URLs of the cluster (any member).
	Endpoints []string
	// Members, when given, names every member and its client URL
	// (name → URL); otherwise they are discovered with MemberList.
	Members []Member
	// Nemesis performs member faults; nil means none can be injected.
	Nemesis Nemesis
	// Timeout bounds the discovery and the health wait.
	Timeout time.Duration
	// Supervisor starts the members' metrics readers (processes of the
	// harness that read each member's /metrics; see CollectMetrics).
	Supervisor *childproc.Supervisor
	// CACert, Cert and Key are the run's TLS files (PEM, as etcdctl's
	// --cacert, --cert, --key), for the metrics readers.
	CACert, Cert, Key string
}

// Attach builds a Cluster from an existing etcd cluster: it asks the
// member list (names, ids, client and peer URLs), keeps the given members'
// URLs where they are named, and waits until the cluster is healthy. It
// never starts or kills anything; member faults go through cfg.Nemesis.
// Clients use etcdcli's settings (TLS, user).
func Attach(ctx context.Context, cfg AttachConfig) (*Cluster, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	listed, err := listMembers(ctx, cfg.Endpoints)
	if err != nil {
		return nil, err
	}
	members, err := mergeMembers(listed, cfg.Members)
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: Config{Size: len(members)}, sup: cfg.Supervisor,
		readerTLS: readerArgs{cacert: cfg.CACert, cert: cfg.Cert, key: cfg.Key}}
	for i, m := range members {
		n, err := attachedNode(c, i, m, cfg.Nemesis)
		if err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, n)
	}
	if err := c.WaitHealthy(ctx); err != nil {
		return nil, fmt.Errorf("waiting for the attached cluster to be healthy: %w", err)
	}
	return c, nil
}

// listMembers asks the cluster for its members.
func listMembers(ctx context.Context, endpoints []string) ([]Member, error) {
	cli, err := NewClient(endpoints...)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	resp, err := cli.MemberList(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the members of %s: %w", strings.Join(endpoints, ","), err)
	}
	return fromList(resp), nil
}

func fromList(resp *clientv3.MemberListResponse) []Member {
	var out []Member
	for _, m := range resp.Members {
		mm := Member{Name: m.Name, ID: fmt.Sprintf("%x", m.ID)}
		if len(m.ClientURLs) > 0 {
			mm.ClientURL = m.ClientURLs[0]
		}
		if len(m.PeerURLs) > 0 {
			mm.PeerURL = m.PeerURLs[0]
		}
		out = append(out, mm)
	}
	return out
}

// mergeMembers keeps the listed members in order, with the client URL
// given for a named member; a named member the cluster does not list, or a
// listed member without a name or client URL, is an error.
func mergeMembers(listed, named []Member) ([]Member, error) {
	byName := map[string]Member{}
	for _, m := range listed {
		byName[m.Name] = m
	}
	for _, g := range named {
		m, ok := byName[g.Name]
		if !ok {
			return nil, fmt.Errorf("--members: the cluster has no member %q (it lists %s)", g.Name, memberNames(listed))
		}
		m.ClientURL = g.ClientURL
		byName[g.Name] = m
	}
	out := make([]Member, 0, len(listed))
	for _, l := range listed {
		m := byName[l.Name]
		if m.Name == "" || m.ClientURL == "" {
			return nil, fmt.Errorf("member %s (id %s) has no name or client URL yet (not started?); name it with --members", m.Name, m.ID)
		}
		out = append(out, m)
	}
	return out, nil
}

func memberNames(ms []Member) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return strings.Join(names, ",")
}

func attachedNode(c *Cluster, i int, m Member, nem Nemesis) (*Node, error) {
	u, err := url.Parse(m.ClientURL)
	if err != nil {
		return nil, fmt.Errorf("member %s: client URL %q: %w", m.Name, m.ClientURL, err)
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return nil, fmt.Errorf("member %s: client URL %q: %w", m.Name, m.ClientURL, err)
	}
	p, _ := strconv.Atoi(port)
	return &Node{c: c, Index: i, Name: m.Name, Host: host, ClientPort: p, id: m.ID, ext: &external{nem: nem, member: m}}, nil
}

// Attached reports whether the member belongs to a cluster the harness did not start.
func (n *Node) Attached() bool { return n.ext != nil }

// Member returns what a nemesis knows of the member.
func (n *Node) Member() Member {
	if n.ext != nil {
		return n.ext.member
	}
	return Member{Name: n.Name, ID: n.id, ClientURL: n.ClientURL(), PeerURL: memberURLString(n.Host, n.PeerPort)}
}

func memberURLString(host string, port int) string { u := memberURL(host, port); return u.String() }

// nemesisDo runs one action on an attached member and updates its state.
func (n *Node) nemesisDo(ctx context.Context, a Action, oneWay bool) error {
	if n.ext.nem == nil {
		return fmt.Errorf("%s etcd %s: %w (the cluster is external; give --nemesis FILE with a %q action)", a, n.Name, ErrNoNemesis, a)
	}
	// The command's output is recorded by the nemesis (an op of the run).
	if _, err := n.ext.nem.Do(ctx, Request{Action: a, Member: n.ext.member, OneWay: oneWay}); err != nil {
		return fmt.Errorf("%s etcd %s: %w", a, n.Name, err)
	}
	n.mu.Lock()
	switch a {
	case ActKill:
		n.ext.down = true
	case ActStart:
		n.ext.down = false
	case ActPause:
		n.ext.paused = true
	case ActResume:
		n.ext.paused = false
	}
	n.mu.Unlock()
	return nil
}
