package zookeeper

import (
	"errors"
	"fmt"
	"time"

	"sdchaos/jvm"
)

// Config describes an ensemble the harness starts.
type Config struct {
	// Label prefixes the member names ("a" → "a-zk1"); empty gives "zk1"….
	Label string
	// Size is the number of voting members (3 by default).
	Size int
	// TickTime, InitLimit and SyncLimit are zoo.cfg's tickTime, initLimit and
	// syncLimit (rules.go: ZooKeeper's sample values 2 s, 10 and 5 by default).
	TickTime             time.Duration
	InitLimit, SyncLimit int
	// MinSessionTimeout and MaxSessionTimeout are written to zoo.cfg when not
	// zero; zero leaves ZooKeeper's 2 and 20 ticks.
	MinSessionTimeout, MaxSessionTimeout time.Duration
	// HeapMB is each member's -Xmx in MiB.
	HeapMB int
	// ReadyTimeout bounds the wait for the quorum after the JVMs start.
	ReadyTimeout time.Duration
	// ClientLinks puts a proxy (linkproxy) in front of each member's client
	// port: ConnectString and ClientServers then name the proxies, so that a
	// fault can blackhole every client's link (Ensemble.ClientLinks).
	ClientLinks bool
	// PeerLinks makes every member reach each peer's quorum and election
	// ports through a proxy of its own (PeerLink), so that a fault can cut
	// one member off from its peers while its clients still reach it.
	PeerLinks bool
	// Keep keeps the ensemble's dir (zoo.cfg, data, logs) after the supervisor
	// closes.
	Keep bool
	// Logf receives progress (the first build takes a minute); nil discards it.
	Logf jvm.Logf
}

// DefaultConfig returns three members with ZooKeeper's sample timing (tickTime
// 2 s, initLimit 10, syncLimit 5), a 96 MiB heap each and 3 minutes to form a
// quorum (three JVMs starting at once on two shared cores).
func DefaultConfig() Config {
	return Config{Size: 3, TickTime: SampleTickTime, InitLimit: SampleInitLimit, SyncLimit: SampleSyncLimit,
		HeapMB: 96, ReadyTimeout: 3 * time.Minute}
}

// Validate reports the first setting out of range, quoting it.
func (c Config) Validate() error {
	switch {
	case c.Size < 1 || c.Size > 9:
		return fmt.Errorf("Config.Size (%d) must be within [1, 9]", c.Size)
	case c.TickTime < 10*time.Millisecond || c.TickTime%time.Millisecond != 0:
		return fmt.Errorf("Config.TickTime (%s) must be a whole number of milliseconds, at least 10ms", c.TickTime)
	case c.InitLimit < 1:
		return fmt.Errorf("Config.InitLimit (%d) must be at least 1 (ZooKeeper refuses a quorum config without it)", c.InitLimit)
	case c.SyncLimit < 1:
		return fmt.Errorf("Config.SyncLimit (%d) must be at least 1 (ZooKeeper refuses a quorum config without it)", c.SyncLimit)
	case c.MinSessionTimeout < 0 || c.MaxSessionTimeout < 0:
		return fmt.Errorf("Config.MinSessionTimeout (%s) and MaxSessionTimeout (%s) must not be negative", c.MinSessionTimeout, c.MaxSessionTimeout)
	case c.MinSessionTimeout != 0 && c.MaxSessionTimeout != 0 && c.MinSessionTimeout > c.MaxSessionTimeout:
		return fmt.Errorf("Config.MinSessionTimeout (%s) is larger than MaxSessionTimeout (%s)", c.MinSessionTimeout, c.MaxSessionTimeout)
	case c.HeapMB < 32 || c.HeapMB > 4096:
		return fmt.Errorf("Config.HeapMB (%d) must be within [32, 4096]", c.HeapMB)
	case c.ReadyTimeout <= 0:
		return errors.New("Config.ReadyTimeout must be positive")
	}
	return nil
}

// SessionRange returns the session timeouts the members grant: zoo.cfg's
// bounds, or 2 and 20 ticks.
func (c Config) SessionRange() (lo, hi time.Duration) {
	lo, hi = c.MinSessionTimeout, c.MaxSessionTimeout
	if lo == 0 {
		lo = MinSessionTicks * c.TickTime
	}
	if hi == 0 {
		hi = MaxSessionTicks * c.TickTime
	}
	return lo, hi
}
