package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"sdchaos/history"
	"sdchaos/ports"
	"sdchaos/rig"
)

// ZooKeeperOptions says what the ZooKeeper world builds.
type ZooKeeperOptions struct {
	// Ensemble configures the ensemble the world starts (its links, its
	// timing); Attach, when set, is an ensemble it attaches to instead.
	Ensemble Config
	Attach   *AttachConfig
	// Instances is how many instances register; Session the session
	// timeout they ask for (the lease: ArticleSessionTimeout when 0).
	Instances int
	Session   time.Duration
	// Service names the instances' service ("svc" when empty).
	Service string
	// OnRegister, if set, is told of every registration of an instance
	// (Sink.Registered); Rejoin, if set, draws the delay an instance
	// waits before registering again once its session expired.
	OnRegister func(id string, start, end time.Time, err error)
	Rejoin     func() time.Duration
}

// ZooKeeper is the started ZooKeeper world: the ensemble (started, or
// attached to) and the registered instances. Close releases it all.
type ZooKeeper struct {
	env       *rig.Env
	alloc     *ports.Allocator
	Ensemble  *Ensemble
	Instances []*Instance
	// Service is the instances' service; Session the timeout they asked for.
	Service string
	Session time.Duration
	// Memory is what the JVMs held at the end (set by the world's Finish);
	// JavaReady how long the Java clients took from launch to ready.
	Memory    Memory
	JavaReady time.Duration
	// deferred run at Close, last registered first.
	deferred []func()
	closed   sync.Once
}

// StartZooKeeper starts (or attaches to) the ensemble and registers the
// instances; everything is released by Close, and by env's Close.
func StartZooKeeper(ctx context.Context, env *rig.Env, o ZooKeeperOptions) (*ZooKeeper, error) {
	z := &ZooKeeper{env: env, alloc: ports.New(env.PortBase, "--port-base"), Service: o.Service, Session: o.Session}
	if z.Service == "" {
		z.Service = "svc"
	}
	if z.Session == 0 {
		z.Session = ArticleSessionTimeout
	}
	env.AddCloser(z.Close)
	if err := z.startEnsemble(ctx, o); err != nil {
		z.Close()
		return nil, err
	}
	w, err := DescribeEnsemble(ctx, z.Ensemble, env.Printf)
	if err != nil {
		z.Close()
		return nil, err
	}
	env.Describe(w)
	if err := z.register(ctx, o); err != nil {
		z.Close()
		return nil, err
	}
	return z, nil
}

// startEnsemble starts the ensemble or attaches to one.
func (z *ZooKeeper) startEnsemble(ctx context.Context, o ZooKeeperOptions) error {
	if o.Attach != nil {
		a := *o.Attach
		a.Alloc = z.alloc
		e, err := Attach(ctx, a)
		if err != nil {
			return fmt.Errorf("%w: %v", rig.ErrTarget, err)
		}
		z.Ensemble = e
		return nil
	}
	sup, err := z.env.Supervisor()
	if err != nil {
		return err
	}
	cfg := o.Ensemble
	cfg.Keep, cfg.Logf = z.env.Keep, z.env.Printf
	e, err := Start(ctx, sup, z.alloc, cfg)
	if err != nil {
		return err
	}
	z.Ensemble = e
	return nil
}

// register starts o.Instances instances, i1…in, each on its own session.
func (z *ZooKeeper) register(ctx context.Context, o ZooKeeperOptions) error {
	for i := 1; i <= o.Instances; i++ {
		id := "i" + strconv.Itoa(i)
		cfg := RegistrantConfig{Servers: z.Ensemble.ClientServers(),
			Chroot: z.Ensemble.Chroot(), Service: z.Service, ID: id, SessionTimeout: z.Session, RejoinDelay: o.Rejoin}
		if o.OnRegister != nil {
			cfg.OnRegister = func(start, end time.Time, err error) { o.OnRegister(id, start, end, err) }
		}
		in, err := StartInstance(ctx, z.alloc, cfg)
		if err != nil {
			return fmt.Errorf("registering instance %d: %w", i, err)
		}
		z.Instances = append(z.Instances, in)
	}
	return nil
}

// Defer makes Close call f before the instances and the ensemble stop.
func (z *ZooKeeper) Defer(f func()) { z.deferred = append(z.deferred, f) }

// Alloc returns the world's port allocator.
func (z *ZooKeeper) Alloc() *ports.Allocator { return z.alloc }

// Describe names the ensemble: its members and their version, or the
// attached target.
func (z *ZooKeeper) Describe() string {
	if z.Ensemble == nil {
		return "ZooKeeper"
	}
	return fmt.Sprintf("ZooKeeper %s, %d members, %d instances (session %s)", ServerVersion, len(z.Ensemble.Members()), len(z.Instances), z.Session)
}

// NewClient returns a Go client of the run's clients' servers (through the
// client links, when there are) on its own session of z.Session.
func (z *ZooKeeper) NewClient() (*Client, error) {
	return NewClient(z.Ensemble.ClientServers(), z.Ensemble.Chroot(), z.Session)
}

// CheckReady reads, through the members themselves (not the client links),
// that every member serves and that every instance is listed, and returns
// the ready op to record once the recorder exists.
func (z *ZooKeeper) CheckReady(ctx context.Context) func(*history.Recorder) {
	start := time.Now()
	n, err := z.countReady(ctx)
	end := time.Now()
	return func(rec *history.Recorder) {
		op := history.Op{Caller: history.ReadyOp, Kind: history.OpGate, Scheduled: rec.Offset(start), Start: rec.Offset(start), End: rec.Offset(end),
			Count: n, Value: strconv.Itoa(len(z.Instances)), Outcome: history.OK}
		if err != nil {
			op.Outcome, op.Err = history.Fail, err.Error()
		}
		rec.Add(op)
	}
}

func (z *ZooKeeper) countReady(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, s := range z.Ensemble.States(ctx) {
		if !s.Mode.Serving() && z.Ensemble.Member(s.Member).Started() {
			return 0, fmt.Errorf("zookeeper %s is %s", s.Member, s.Mode)
		}
	}
	c, err := NewClient(z.Ensemble.Servers(), z.Ensemble.Chroot(), z.Session)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := c.WaitSession(ctx); err != nil {
		return 0, err
	}
	ins, err := c.Instances(ctx, DefaultBasePath, z.Service)
	return len(ins), err
}

// Close runs the deferred functions, closes the instances (their sessions
// end, their nodes go) and the ensemble (the run's chroot removed, the
// members killed, the links closed).
func (z *ZooKeeper) Close() {
	z.closed.Do(func() {
		for i := len(z.deferred) - 1; i >= 0; i-- {
			z.deferred[i]()
		}
		for _, in := range z.Instances {
			in.Close()
		}
		if z.Ensemble != nil {
			if err := z.Ensemble.Close(); err != nil && !errors.Is(err, context.Canceled) {
				z.env.Printf("zookeeper: %v", err)
			}
		}
	})
}
