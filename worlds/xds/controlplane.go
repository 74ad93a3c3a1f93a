package xds

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"sdchaos/childproc"
	"sdchaos/ports"
)

// ControlPlane is one control-plane process, started, killed and
// restarted on the same port by the run's supervisor.
type ControlPlane struct {
	sup  *childproc.Supervisor
	args controlPlaneArgs
	// Name labels it ("xds-cp1"); Addr is its ADS address; LogPath its log.
	Name, Addr, LogPath string
	mu                  sync.Mutex
	child               *childproc.Child
	// ReadyIn is how long its last start took until it answered.
	ReadyIn time.Duration
}

// controlReady bounds the wait for a started control plane's first answer.
const controlReady = 20 * time.Second

// NewControlPlane describes a control plane named name on 127.0.0.1:port
// over the etcd endpoints, logging into dir, without starting it (its
// address can be handed to clients first).
func NewControlPlane(sup *childproc.Supervisor, name, dir string, port int, etcd []string, set ControlPlaneSettings) (*ControlPlane, error) {
	if err := set.Validate(); err != nil {
		return nil, err
	}
	return &ControlPlane{sup: sup, args: controlPlaneArgs{Port: port, Etcd: etcd, Set: set},
		Name: name, Addr: ports.Addr(port), LogPath: filepath.Join(dir, name+".log")}, nil
}

// StartControlPlane is NewControlPlane and Start.
func StartControlPlane(ctx context.Context, sup *childproc.Supervisor, name, dir string, port int, etcd []string, set ControlPlaneSettings) (*ControlPlane, error) {
	cp, err := NewControlPlane(sup, name, dir, port, etcd, set)
	if err != nil {
		return nil, err
	}
	if err := cp.Start(ctx); err != nil {
		return nil, err
	}
	return cp, nil
}

// Start starts the control plane's process and waits until it answers.
func (cp *ControlPlane) Start(ctx context.Context) error {
	t0 := time.Now()
	ch, err := cp.sup.Start(childproc.Spec{Name: cp.Name, Command: controlPlaneCommand,
		Args: cp.args.argv(), LogPath: cp.LogPath, Control: true})
	if err != nil {
		return fmt.Errorf("starting control plane %s: %w", cp.Name, err)
	}
	cp.mu.Lock()
	cp.child = ch
	cp.mu.Unlock()
	if _, err := cp.status(min(controlReady, untilDeadline(ctx))); err != nil {
		ch.Kill()
		return fmt.Errorf("waiting for control plane %s (log %s): %w", cp.Name, cp.LogPath, err)
	}
	cp.ReadyIn = time.Since(t0)
	return nil
}

func untilDeadline(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return time.Until(d)
	}
	return controlReady
}

// Kill SIGKILLs the control plane and waits until its process is gone.
func (cp *ControlPlane) Kill() {
	if ch := cp.Child(); ch != nil {
		ch.Kill()
	}
}

// Restart starts a killed control plane again on its port with start and
// hold in place of its settings' own.
func (cp *ControlPlane) Restart(ctx context.Context, start StartSnapshot, hold time.Duration) error {
	if ch := cp.Child(); ch != nil && !ch.Exited() {
		return fmt.Errorf("restarting control plane %s: still running", cp.Name)
	}
	cp.args.Set.Start, cp.args.Set.Hold = start, hold
	return cp.Start(ctx)
}

// Child returns its current process.
func (cp *ControlPlane) Child() *childproc.Child {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.child
}

// Status asks the control plane what it serves.
func (cp *ControlPlane) Status() (Status, error) { return cp.status(5 * time.Second) }

func (cp *ControlPlane) status(timeout time.Duration) (Status, error) {
	var st Status
	ch := cp.Child()
	if ch == nil {
		return st, fmt.Errorf("control plane %s: not started", cp.Name)
	}
	ans, err := ch.Control("status", timeout)
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal([]byte(ans), &st); err != nil {
		return st, fmt.Errorf("control plane %s: reading status %q: %w", cp.Name, ans, err)
	}
	return st, nil
}

// Follow makes a control plane holding its start snapshot follow the registry.
func (cp *ControlPlane) Follow() error {
	ch := cp.Child()
	if ch == nil {
		return fmt.Errorf("control plane %s: not started", cp.Name)
	}
	_, err := ch.Control("follow", 5*time.Second)
	return err
}
