package fault

import (
	"context"
	"errors"
	"fmt"

	"sdchaos/history"
)

// Link is one client's own path to the registry, named after its client
// (a real Nacos client's link: a proxy for its HTTP and one for its gRPC
// connections): BlackholeLinks switches it.
type Link interface {
	// Name names the client whose link it is ("instance-0", "spring").
	Name() string
	// Blackhole holds every byte both ways (connections stay open).
	Blackhole() error
	// Heal lets bytes pass again.
	Heal() error
}

// BlackholeLinks holds every byte on the named clients' links, like heavy
// packet loss between those clients and the registry; the registry and
// every other path are untouched. A staggered heal is one step per link,
// each with its own duration.
type BlackholeLinks struct {
	Links []Link
	// Cluster names the part of the run the links belong to when a run has
	// several (a storm's phase); empty otherwise.
	Cluster string
}

// Describe returns the blackhole event on the links' clients ("blackhole
// every client link (9)", "blackhole instance-3's link").
func (b BlackholeLinks) Describe() history.Event {
	names := make([]string, len(b.Links))
	for i, l := range b.Links {
		names[i] = l.Name()
	}
	label := fmt.Sprintf("blackhole every client link (%d)", len(names))
	if len(names) == 1 {
		label = "blackhole " + names[0] + "'s link"
	}
	if b.Cluster != "" {
		label = b.Cluster + ": " + label
	}
	return history.Event{Kind: history.BlackholeLinks, Targets: names, Label: label, Cluster: b.Cluster}
}

// Inject blackholes every link.
func (b BlackholeLinks) Inject(context.Context) error {
	return eachLink(b.Links, Link.Blackhole)
}

// Heal lets bytes pass on every link again.
func (b BlackholeLinks) Heal(context.Context) error { return eachLink(b.Links, Link.Heal) }

func eachLink(ls []Link, f func(Link) error) error {
	var errs []error
	for _, l := range ls {
		if err := f(l); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", l.Name(), err))
		}
	}
	return errors.Join(errs...)
}
