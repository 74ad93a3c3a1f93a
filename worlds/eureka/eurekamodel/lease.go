package eurekamodel

import "time"

// Instance is one registered service instance.
type Instance struct {
	App  string `json:"app"`
	ID   string `json:"id"`
	Addr string `json:"addr"`
}

// Key returns "app/id", the registry key of the instance.
func (i Instance) Key() string { return i.App + "/" + i.ID }

// lease is Lease.java: timestamps are on the server's wall clock (which a
// clock step moves).
type lease struct {
	inst       Instance
	registered time.Time
	lastUpdate time.Time
	duration   time.Duration
}

func newLease(inst Instance, now time.Time, d time.Duration) *lease {
	return &lease{inst: inst, registered: now, lastUpdate: now, duration: d}
}

// renew is Lease.renew(). With bug set it stores now + duration, as the
// source does ("lastUpdateTimestamp = System.currentTimeMillis() + duration"),
// so that expiry — which adds duration again — comes about 2 × duration
// after the last renewal; without it, the intended now.
func (l *lease) renew(now time.Time, bug bool) {
	if bug {
		l.lastUpdate = now.Add(l.duration)
		return
	}
	l.lastUpdate = now
}

// expired is Lease.isExpired(additionalLeaseMs): now > lastUpdate + duration + additional.
func (l *lease) expired(now time.Time, additional time.Duration) bool {
	return now.After(l.lastUpdate.Add(l.duration + additional))
}
