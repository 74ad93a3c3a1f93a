package fault

import (
	"context"
	"fmt"

	"sdchaos/fakeservice"
	"sdchaos/history"
)

// BlackholeConns is Blackhole without a proxy on the path: every
// connection dialled through Cut (the storm's lean registrants') holds what
// it sends and receives until the heal — connections stay open and silent,
// new ones wait, and what the clients sent reaches the registry at the
// heal — while the harness pays nothing per connection as long as the link
// passes (see fakeservice.Cut). It records the same event as Blackhole.
type BlackholeConns struct {
	Cut *fakeservice.Cut
	// Targets are the members' client addresses the connections go to.
	Targets []string
}

// Describe returns the blackhole event on the targets ("blackhole client
// links to 3 etcd members (held by the clients' connections, no proxy)").
func (b BlackholeConns) Describe() history.Event {
	return history.Event{Kind: history.BlackholeLinks, Targets: b.Targets,
		Label: fmt.Sprintf("blackhole client links to %d etcd members (held in the clients' connections, no proxy)", len(b.Targets))}
}

// Inject starts holding every byte.
func (b BlackholeConns) Inject(context.Context) error { b.Cut.Hold(); return nil }

// Heal lets the held bytes go and the links pass again.
func (b BlackholeConns) Heal(context.Context) error { b.Cut.Release(); return nil }
