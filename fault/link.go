package fault

import (
	"errors"

	"sdchaos/linkproxy"
)

// The link faults (Blackhole, Reject, Latency) break the client paths to the
// registry: every client (callers and instances) reaches each etcd member
// through a linkproxy, and these faults switch the proxies. The members and
// their peer traffic are untouched. Each heals by letting bytes pass again
// without added latency.

// EachProxy applies f to every proxy and joins their errors.
func EachProxy(ps []*linkproxy.Proxy, f func(*linkproxy.Proxy) error) error {
	var errs []error
	for _, p := range ps {
		errs = append(errs, f(p))
	}
	return errors.Join(errs...)
}

// targets returns the addresses the proxies forward to.
func targets(ps []*linkproxy.Proxy) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Target()
	}
	return out
}

// HealLinks lets bytes pass again on every proxy, without added latency.
func HealLinks(ps []*linkproxy.Proxy) error {
	return EachProxy(ps, func(p *linkproxy.Proxy) error { p.Delay(0); return p.Heal() })
}
