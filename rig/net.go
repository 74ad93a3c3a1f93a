package rig

import (
	"fmt"

	"sdchaos/netns"
)

// Net says which network a run uses.
type Net string

const (
	// Loopback is the host's loopback: every member on 127.0.0.1, the
	// proxies' faults only (the default).
	Loopback Net = "loopback"
	// Private is a private user + network namespace made for the run
	// (package netns): members on 198.18.0.N, and packet-level faults
	// through the run's packet filter (Env.Filter). The command
	// re-executes itself inside the namespace before the run starts.
	Private Net = "private"
)

// Nets lists the network modes, in flag order.
var Nets = []Net{Loopback, Private}

// String returns the mode's flag value.
func (n Net) String() string { return string(n) }

// Set parses a flag value: loopback or private.
func (n *Net) Set(s string) error {
	for _, m := range Nets {
		if string(m) == s {
			*n = m
			return nil
		}
	}
	return fmt.Errorf("want %s or %s", Loopback, Private)
}

// Filter returns the run's packet filter (one nf_tables table in the
// run's private namespace), opening it on first use; Close deletes it. It
// is an error unless the run uses the private network.
func (e *Env) Filter() (*netns.Filter, error) {
	if e.Net != Private {
		return nil, fmt.Errorf("packet faults need --net private (this run uses --net %s)", e.Net)
	}
	e.supMu.Lock()
	defer e.supMu.Unlock()
	if e.filter == nil {
		f, err := netns.OpenFilter()
		if err != nil {
			return nil, err
		}
		e.filter = f
	}
	return e.filter, nil
}

// MemberHosts returns the members' addresses for the run's network: none
// (127.0.0.1 for all) on loopback, 198.18.0.1… in the private namespace.
func (e *Env) MemberHosts(n int) []string {
	if e.Net != Private {
		return nil
	}
	return netns.MemberHosts(n)
}
