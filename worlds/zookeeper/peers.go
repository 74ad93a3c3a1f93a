package zookeeper

import (
	"fmt"

	"sdchaos/linkproxy"
	"sdchaos/ports"
)

// PeerLink is the way one member reaches one peer when the ensemble runs
// with peer links (Config.PeerLinks): a proxy for the peer's quorum port and
// one for its election port, both on 127.0.0.1, which member From's zoo.cfg
// names as peer To's ports. The quorum proxy dials the leader with the
// learner's own tries (dialLearner); the election proxy rewrites the
// member's first message so the peer dials back through its own link
// (initmsg.go).
type PeerLink struct {
	From, To string
	// QuorumPort and ElectionPort are where the proxies listen.
	QuorumPort, ElectionPort int
	Quorum, Election         *linkproxy.Proxy
}

// Proxies returns the link's two proxies.
func (l PeerLink) Proxies() []*linkproxy.Proxy { return []*linkproxy.Proxy{l.Quorum, l.Election} }

// peerNet is every ordered pair of members, each through its own PeerLink,
// and the server lines each member's zoo.cfg gets.
type peerNet struct {
	links []PeerLink
	views map[int][]ServerPorts
}

// newPeerNet starts a link for every ordered pair of members on ports from
// alloc; on an error it closes what it started.
func newPeerNet(alloc *ports.Allocator, label string, all []ServerPorts) (*peerNet, error) {
	n := &peerNet{views: map[int][]ServerPorts{}}
	for _, self := range all {
		view := make([]ServerPorts, len(all))
		for i, peer := range all {
			view[i] = peer
			if peer.ID == self.ID {
				continue
			}
			l, err := newPeerLink(alloc, memberName(label, self.ID), memberName(label, peer.ID), peer)
			if err != nil {
				n.close()
				return nil, err
			}
			n.links = append(n.links, l)
			view[i].Quorum, view[i].Election = l.QuorumPort, l.ElectionPort
		}
		n.views[self.ID] = view
	}
	return n, nil
}

// newPeerLink starts the two proxies member from dials for peer to.
func newPeerLink(alloc *ports.Allocator, from, to string, peer ServerPorts) (PeerLink, error) {
	l := PeerLink{From: from, To: to}
	var err error
	l.QuorumPort, err = alloc.Take(fmt.Sprintf("zookeeper %s→%s quorum link", from, to))
	if err != nil {
		return l, err
	}
	if l.ElectionPort, err = alloc.Take(fmt.Sprintf("zookeeper %s→%s election link", from, to)); err != nil {
		return l, err
	}
	if l.Quorum, err = linkproxy.NewDial(ports.Addr(l.QuorumPort), ports.Addr(peer.Quorum), dialLearner); err != nil {
		return l, fmt.Errorf("zookeeper %s→%s quorum link: %w", from, to, err)
	}
	if l.Election, err = linkproxy.NewDial(ports.Addr(l.ElectionPort), ports.Addr(peer.Election), dialRewriting); err != nil {
		_ = l.Quorum.Close()
		return l, fmt.Errorf("zookeeper %s→%s election link: %w", from, to, err)
	}
	return l, nil
}

// of returns the links to and from member name.
func (n *peerNet) of(name string) []PeerLink {
	var out []PeerLink
	for _, l := range n.links {
		if l.From == name || l.To == name {
			out = append(out, l)
		}
	}
	return out
}

// outbound returns the links member name dials.
func (n *peerNet) outbound(name string) []PeerLink {
	var out []PeerLink
	for _, l := range n.links {
		if l.From == name {
			out = append(out, l)
		}
	}
	return out
}

func (n *peerNet) close() {
	for _, l := range n.links {
		for _, p := range l.Proxies() {
			if p != nil {
				_ = p.Close()
			}
		}
	}
}
