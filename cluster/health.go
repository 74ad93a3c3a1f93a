package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// pollInterval is how often health is polled.
const pollInterval = 50 * time.Millisecond

// MemberStatus is one member's view of the cluster.
type MemberStatus struct {
	Node   *Node
	ID     uint64
	Leader uint64
	Err    error
}

// Status asks member n for its status, bounded by timeout.
func (n *Node) Status(ctx context.Context, cli *clientv3.Client, timeout time.Duration) MemberStatus {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := cli.Status(ctx, n.ClientURL())
	if err != nil {
		return MemberStatus{Node: n, Err: err}
	}
	return MemberStatus{Node: n, ID: resp.Header.MemberId, Leader: resp.Leader}
}

// WaitHealthy waits until every running member answers and all agree on
// one leader that is among them.
func (c *Cluster) WaitHealthy(ctx context.Context) error {
	return c.waitFor(ctx, c.running())
}

// WaitLeader waits until the given members (all running ones if none) agree
// on a leader among them, and returns the leader.
func (c *Cluster) WaitLeader(ctx context.Context, among ...*Node) (*Node, error) {
	if len(among) == 0 {
		among = c.running()
	}
	if err := c.waitFor(ctx, among); err != nil {
		return nil, err
	}
	return c.leaderOf(ctx, among)
}

func (c *Cluster) running() []*Node {
	var out []*Node
	for _, n := range c.nodes {
		if n.Running() && !n.Paused() {
			out = append(out, n)
		}
	}
	return out
}

// leaderOf returns the member the given members agree is leader.
func (c *Cluster) leaderOf(ctx context.Context, among []*Node) (*Node, error) {
	sts, err := c.statuses(ctx, among)
	if err != nil {
		return nil, err
	}
	if l := agreedLeader(sts); l != nil {
		return l, nil
	}
	return nil, errors.New("no agreed leader")
}

func (c *Cluster) statuses(ctx context.Context, among []*Node) ([]MemberStatus, error) {
	cli, err := NewClient(c.Endpoints()...)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	out := make([]MemberStatus, len(among))
	done := make(chan struct{}, len(among))
	for i, n := range among {
		go func() { out[i] = n.Status(ctx, cli, 500*time.Millisecond); done <- struct{}{} }()
	}
	for range among {
		<-done
	}
	return out, nil
}

// agreedLeader returns the leader node if every status answered, all name
// the same leader, and that leader is one of the answering members.
func agreedLeader(sts []MemberStatus) *Node {
	if len(sts) == 0 {
		return nil
	}
	var leader *Node
	for _, s := range sts {
		if s.Err != nil || s.Leader == 0 || s.Leader != sts[0].Leader {
			return nil
		}
		if s.ID == s.Leader {
			leader = s.Node
		}
	}
	return leader
}

func (c *Cluster) waitFor(ctx context.Context, among []*Node) error {
	if len(among) == 0 {
		return errors.New("no running member")
	}
	cli, err := NewClient(c.Endpoints()...)
	if err != nil {
		return err
	}
	defer cli.Close()
	var last []MemberStatus
	for {
		last = last[:0]
		for _, n := range among {
			last = append(last, n.Status(ctx, cli, 300*time.Millisecond))
		}
		if agreedLeader(last) != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last statuses: %s)", ctx.Err(), describe(last))
		case <-time.After(pollInterval):
		}
	}
}

func describe(sts []MemberStatus) string {
	parts := make([]string, 0, len(sts))
	for _, s := range sts {
		if s.Err != nil {
			parts = append(parts, fmt.Sprintf("%s: %v", s.Node.Name, s.Err))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s: id %x leader %x", s.Node.Name, s.ID, s.Leader))
	}
	return strings.Join(parts, "; ")
}

// waitServing waits until the member answers a status request (it may have
// no leader yet).
func (n *Node) waitServing(ctx context.Context) error {
	cli, err := n.Client()
	if err != nil {
		return err
	}
	defer cli.Close()
	for {
		s := n.Status(ctx, cli, 300*time.Millisecond)
		if s.Err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for etcd %s to serve: %w (last error: %v)", n.Name, ctx.Err(), s.Err)
		case <-time.After(pollInterval):
		}
	}
}

// waitPeerServing waits until the member answers HTTP on its peer port (its
// bootstrap is done and it serves /members to the other members).
func (n *Node) waitPeerServing(ctx context.Context) error {
	u := memberURL(n.Host, n.PeerPort)
	hc := &http.Client{Timeout: 200 * time.Millisecond}
	for {
		resp, err := hc.Get(u.String() + "/members")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if n.Child().Exited() {
			return fmt.Errorf("etcd %s exited during start-up", n.Name)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("peer port %d not serving: %w (last error: %v)", n.PeerPort, ctx.Err(), err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
