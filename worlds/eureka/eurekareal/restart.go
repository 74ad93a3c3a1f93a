package eurekareal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sdchaos/childproc"
)

// launchSpec is how a server's JVM was started: Restart starts it the same
// way (same port, same properties, same peers, same log file appended to).
type launchSpec struct {
	sup   *childproc.Supervisor
	ext   childproc.ExternalSpec
	ready time.Duration
}

// start starts the JVM of s.launch.
func (s *Server) start() error {
	proc, _, err := s.launch.sup.StartExternal(s.launch.ext)
	if err != nil {
		return err
	}
	s.child = proc
	return nil
}

// ErrRunning is returned by Restart for a server whose JVM still runs.
var ErrRunning = errors.New("the server still runs")

// Restart starts a killed server again on its port, with the same
// properties and peers, and waits until it has opened its registry (at
// most the cluster's ReadyTimeout). A real Eureka server keeps nothing on
// disk: it comes back with an empty registry and, with
// registry-sync-retries 0 (Spring Cloud's default), opens without copying
// its peers' (PeerAwareInstanceRegistryImpl.syncUp, openForTraffic). It
// must not run concurrently with the server's other methods.
func (s *Server) Restart(ctx context.Context) error {
	if s.Alive() {
		return fmt.Errorf("restarting eureka %s: %w", s.Name, ErrRunning)
	}
	launched := time.Now()
	if err := s.start(); err != nil {
		return fmt.Errorf("restarting eureka %s: %w", s.Name, err)
	}
	if err := s.waitOpen(ctx, launched, launched.Add(s.launch.ready)); err != nil {
		return fmt.Errorf("restarting eureka %s: %w", s.Name, err)
	}
	return nil
}
