package cluster

import (
	"context"
	"fmt"
	"sync"
)

// Peer partitions use etcd's own rafthttp switches inside the member
// processes (EtcdServer.CutPeer / MendPeer, driven over the control
// channel), as etcd's integration tests do. CutPeer(y) on member x pauses
// x's transport for y: x drops the raft messages it would send to y and the
// stream messages it receives from y. Clients still reach every member.
//
// Limits: only raft traffic is cut (a snapshot send bypasses the pause;
// with the default snapshot count no snapshot is sent in these short runs);
// a one-way cut pauses one side's transport only, so messages the other
// side sends through the pipeline path (used when its stream is down) may
// still be delivered.

// memberID returns the member's raft id (hex), asking the process once.
func (n *Node) memberID() (string, error) {
	n.mu.Lock()
	id := n.id
	n.mu.Unlock()
	if id != "" {
		return id, nil
	}
	id, err := n.Control("id")
	if err != nil {
		return "", fmt.Errorf("asking etcd %s for its id: %w", n.Name, err)
	}
	n.mu.Lock()
	n.id = id
	n.mu.Unlock()
	return id, nil
}

// cut makes n drop raft traffic with peer (verb "cut") or restore it ("mend").
func (n *Node) cutPeer(verb string, peer *Node) error {
	id, err := peer.memberID()
	if err != nil {
		return err
	}
	if _, err := n.Control(verb + " " + id); err != nil {
		return fmt.Errorf("%s %s→%s: %w", verb, n.Name, peer.Name, err)
	}
	return nil
}

// Isolate cuts raft traffic between n and every other member. With oneWay
// only n's side is cut (see the package comment on partitions for what that
// means).
func (c *Cluster) Isolate(n *Node, oneWay bool) error {
	if n.ext != nil {
		return n.nemesisDo(context.Background(), ActIsolate, oneWay)
	}
	return c.setPartition("cut", n, oneWay)
}

// Rejoin restores raft traffic between n and every other member.
func (c *Cluster) Rejoin(n *Node, oneWay bool) error {
	if n.ext != nil {
		return n.nemesisDo(context.Background(), ActHeal, oneWay)
	}
	return c.setPartition("mend", n, oneWay)
}

func (c *Cluster) setPartition(verb string, n *Node, oneWay bool) error {
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(c.nodes))
	for _, o := range c.nodes {
		if o == n {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- n.cutPeer(verb, o)
			if !oneWay {
				errs <- o.cutPeer(verb, n)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
