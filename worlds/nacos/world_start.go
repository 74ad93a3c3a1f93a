package nacos

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// listPatience bounds the wait for the server to list every instance after they registered.
const listPatience = 30 * time.Second

// instance is one ephemeral instance of the world: its link, its endpoint, its registrant
// (nil when its registration failed) and its first registration.
type instance struct {
	name  string
	link  *Link
	ep    *Endpoint
	reg   *Registrant
	first span
}

// span is a registration's call: when it started and ended, and its error.
type span struct {
	start, end time.Time
	err        error
}

// Start starts the server, then every instance's link and endpoint, registers the instances
// (Parallel at once) and waits, at most listPatience, for the server to list them all.
func (w *World) Start(ctx context.Context) error {
	if err := w.startRegistry(ctx); err != nil {
		return err
	}
	if err := w.describe(ctx); err != nil {
		return err
	}
	var err error
	if w.dir, err = w.sup.TempDir("sdchaos-nacos-clients-*", w.spec.Keep); err != nil {
		return fmt.Errorf("the clients' directory: %w", err)
	}
	if f, err := os.Create(filepath.Join(w.dir, "nacos-sdk-go.log")); err == nil {
		w.sdkLog = f
		SetSDKLog(f)
	}
	if err := w.openInstances(); err != nil {
		return err
	}
	if st := w.spec.ServiceSettings; st != nil {
		if err := CreateService(ctx, w.server.Addr(), w.spec.Service, !st.Persistent, st.ProtectThreshold); err != nil {
			return err
		}
	}
	w.registerAll(ctx)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("registering the instances: %w", err)
	}
	w.listed = w.awaitListed(ctx)
	if w.cluster != nil {
		w.recordOwners(ctx)
	}
	w.spec.Logf("%d instances registered (%d at once)", w.spec.Instances, w.spec.Parallel)
	return nil
}

// describe names the running server (as its jar says) and hands spec.Describe what the world
// runs: the server, its settings, the callers' and the instances' clients.
func (w *World) describe(ctx context.Context) error {
	sw, err := DescribeServer(ctx, w.server, w.spec.Logf)
	if err != nil {
		return err
	}
	c, _ := sw.Component(ServerComponent)
	w.serverLine = "Nacos server " + c.Version + " (" + c.Coordinates + ")"
	if w.spec.Describe == nil {
		return nil
	}
	cw, err := DescribeCallers(ctx, w.spec.Callers, w.spec.Logf)
	if err != nil {
		return err
	}
	sw.Add(cw)
	w.spec.Describe(sw)
	return nil
}

// instanceName names instance i as the events do.
func instanceName(i int) string { return fmt.Sprintf("instance-%d", i) }

// openInstances opens every instance's link and endpoint.
func (w *World) openInstances() error {
	for i := range w.spec.Instances {
		in := &instance{name: instanceName(i)}
		w.instances = append(w.instances, in)
		var err error
		if in.link, err = w.newLink(in.name); err != nil {
			return err
		}
		if in.ep, err = StartEndpoint(w.spec.EndpointPorts, in.name); err != nil {
			return err
		}
	}
	return nil
}

// registerAll registers every instance on its own client and link, Parallel at once; once ctx
// ends it starts no more.
func (w *World) registerAll(ctx context.Context) {
	sem := make(chan struct{}, w.spec.Parallel)
	var wg sync.WaitGroup
	for _, in := range w.instances {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			in.first.start = time.Now()
			if err := ctx.Err(); err != nil {
				in.first.end, in.first.err = in.first.start, err
				return
			}
			if st := w.spec.ServiceSettings; st != nil && st.Persistent {
				in.first.err = RegisterPersistent(ctx, w.server.Addr(), w.spec.Service, in.ep.Port())
			} else {
				in.reg, in.first.err = Register(GoDefaults(in.link.Addr(), filepath.Join(w.dir, in.name)), w.spec.Service, in.ep)
			}
			in.first.end = time.Now()
		}()
	}
	wg.Wait()
}

// awaitListed polls the server until it lists every instance (at most listPatience) and
// returns when it did, or the end of the wait when it never did.
func (w *World) awaitListed(ctx context.Context) time.Time {
	deadline := time.Now().Add(listPatience)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if list, err := w.server.Instances(ctx, w.spec.Service); err == nil && len(list) == w.spec.Instances {
			return time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.spec.Logf("the server did not list every instance within %s", listPatience)
	return time.Now()
}

// Name returns the instance's name (a fault's target).
func (in *instance) Name() string { return in.name }

// errNotRegistered is a fault's error on an instance whose registration failed.
var errNotRegistered = errors.New("never registered")

// Deregister removes the instance from the server (its client stays connected).
func (in *instance) Deregister() error {
	if in.reg == nil {
		return errNotRegistered
	}
	return in.reg.Deregister()
}

// Reregister registers the instance again on its client.
func (in *instance) Reregister() error {
	if in.reg == nil {
		return errNotRegistered
	}
	return in.reg.Reregister()
}

// Crash stops the instance as its process's death would: its endpoint refuses connections and
// its client's connection is closed (the server drops the instance when the close reaches it:
// at once, or when a blackholed link lets it through). A persistent instance, which no client
// holds, keeps its registration: only its endpoint closes, and the server's health check
// finds it dead.
func (in *instance) Crash() error {
	switch {
	case in.reg != nil:
		in.reg.Close()
		return nil
	case in.first.err == nil && in.ep != nil: // registered through the admin API (persistent)
		return in.ep.Close()
	}
	return errNotRegistered
}

// close closes the instance's client, endpoint and link.
func (in *instance) close() {
	if in.reg != nil {
		in.reg.Close()
	} else if in.ep != nil {
		_ = in.ep.Close()
	}
	if in.link != nil {
		in.link.Close()
	}
}
