package eurekareal

import "time"

// scaledProps are the scaled intervals the real-cluster tests run with
// (integration/eurekajvm keeps the same ones): renew 1 s, lease 3 s,
// eviction every 1000 ms, expected-client renewal 1 s, fetch 1 s.
func scaledProps() Props {
	p := DefaultProps()
	p.RenewInterval, p.LeaseDuration, p.FetchInterval = time.Second, 3*time.Second, time.Second
	p.EvictionInterval, p.ExpectedRenewInterval = time.Second, time.Second
	p.CacheUpdate, p.PeerTimeout = time.Second, time.Second
	p.ConnectTimeout, p.ReadTimeout = time.Second, 2*time.Second
	return p
}
