package fault

import (
	"fmt"
	"sync"

	"sdchaos/netns"
)

// The packet faults (DropPeerPackets, DropClientPackets, DropMemberPackets,
// ResetClientPackets) act on real packets inside the run's private network
// namespace (netns): each installs nf_tables rules in the run's filter when
// injected and removes them when healed; the filter's Close removes what is
// left at the end, and the namespace takes everything with it when the run
// ends. They need members on distinct non-loopback addresses
// (cluster.Config.Hosts = netns.MemberHosts(n)), so that a packet names the
// members it travels between. Each drawn packet is dropped (or reset) with
// probability Loss, independently: TCP retransmits what was lost, with
// growing timeouts.

// Direction says which packets a fault acts on, seen from the member(s).
type Direction int

const (
	// BothWays acts on packets sent and received by the member.
	BothWays Direction = iota
	// Outbound acts only on packets the member sends.
	Outbound
	// Inbound acts only on packets the member receives.
	Inbound
)

// String returns "both ways", "outbound" or "inbound".
func (d Direction) String() string {
	switch d {
	case Outbound:
		return "outbound"
	case Inbound:
		return "inbound"
	}
	return "both ways"
}

// Has reports whether d includes the one-way direction x.
func (d Direction) Has(x Direction) bool { return d == BothWays || d == x }

// PacketRules is the state a packet fault keeps between inject and heal:
// its chain in the filter and, once healed, what its rules did. A world's
// own packet fault (nacos.DropClients) embeds it too.
type PacketRules struct {
	mu      sync.Mutex
	applied *netns.Applied
	counts  netns.Counts
}

// Apply installs rules in f under label; a second Apply before Remove is an error.
func (p *PacketRules) Apply(f *netns.Filter, label string, rules []netns.Rule) error {
	if f == nil {
		return fmt.Errorf("%s: no packet filter (the run is not in a private network namespace)", label)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.applied != nil {
		return fmt.Errorf("%s: already injected", label)
	}
	a, err := f.Apply(label, rules)
	if err != nil {
		return err
	}
	p.applied = a
	return nil
}

// Remove reads the counters and removes the rules. With mustSelect, rules
// that selected no packet are an error (the fault did not take effect:
// members exchange heartbeats every tick, so their rules always see some).
func (p *PacketRules) Remove(label string, mustSelect bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.applied == nil {
		return nil
	}
	c, cerr := p.applied.Counts()
	if err := p.applied.Remove(); err != nil {
		return err
	}
	p.applied, p.counts = nil, c
	switch {
	case cerr != nil:
		return cerr
	case mustSelect && c.Selected == 0:
		return fmt.Errorf("%s: its rules selected no packet (the fault did not take effect)", label)
	}
	return nil
}

// Counts returns what the fault's rules did (packets selected, and dropped
// or reset), as read when it was healed; zero before.
func (p *PacketRules) Counts() netns.Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts
}

// percent formats a loss probability ("30 %").
// Percent writes a loss share (0–1) as a percentage ("30 %").
func Percent(loss float64) string { return fmt.Sprintf("%g %%", 100*loss) }
