package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// RegistrantConfig describes one instance's registration.
type RegistrantConfig struct {
	// Servers are the members' client addresses (Ensemble.Servers); Chroot the
	// run's root (Ensemble.Chroot), prefixed to every path.
	Servers []string
	Chroot  string
	// BasePath is Curator's discovery base path (DefaultBasePath when empty).
	BasePath string
	// Service and ID name the instance; Address and Port are where it serves.
	Service, ID string
	Address     string
	Port        int
	// SessionTimeout is the session timeout the client asks for
	// (ArticleSessionTimeout when zero); the server clamps it
	// (NegotiateSessionTimeout).
	SessionTimeout time.Duration
	// CallTimeout bounds each registry call (2 s when zero).
	CallTimeout time.Duration
	// OnRegister, if set, is told of every attempt to create the node
	// (from its create's start to its end, and its error).
	OnRegister func(start, end time.Time, err error)
	// RejoinDelay, if set, is how long the registrant waits, once its
	// session expired and a new one came, before it registers again (a
	// seeded back-off; at once when nil).
	RejoinDelay func() time.Duration
}

func (c RegistrantConfig) withDefaults() RegistrantConfig {
	if c.BasePath == "" {
		c.BasePath = DefaultBasePath
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = ArticleSessionTimeout
	}
	if c.CallTimeout == 0 {
		c.CallTimeout = 2 * time.Second
	}
	return c
}

// Validate reports the first missing or impossible setting, quoting it.
func (c RegistrantConfig) Validate() error {
	switch {
	case len(c.Servers) == 0:
		return errors.New("RegistrantConfig.Servers is empty")
	case c.Service == "" || c.ID == "":
		return fmt.Errorf("RegistrantConfig.Service (%q) and ID (%q) must be set", c.Service, c.ID)
	case c.Port <= 0 || c.Port > 65535:
		return fmt.Errorf("RegistrantConfig.Port (%d) is not a port", c.Port)
	case c.SessionTimeout < 0 || c.CallTimeout < 0:
		return fmt.Errorf("RegistrantConfig.SessionTimeout (%s) and CallTimeout (%s) must not be negative", c.SessionTimeout, c.CallTimeout)
	}
	return nil
}

// SessionState is a state of the registrant's ZooKeeper session.
type SessionState string

// The session states a registrant records.
const (
	SessionConnecting   SessionState = "connecting"
	SessionConnected    SessionState = "connected"   // TCP up, handshake under way
	SessionEstablished  SessionState = "has-session" // the server accepted (or renewed) the session
	SessionDisconnected SessionState = "disconnected"
	SessionExpired      SessionState = "expired"
	SessionOther        SessionState = "other"
)

func sessionState(s zk.State) SessionState {
	switch s {
	case zk.StateConnecting:
		return SessionConnecting
	case zk.StateConnected:
		return SessionConnected
	case zk.StateHasSession:
		return SessionEstablished
	case zk.StateDisconnected:
		return SessionDisconnected
	case zk.StateExpired:
		return SessionExpired
	}
	return SessionOther
}

// SessionEvent is one session state change, as the client saw it.
type SessionEvent struct {
	Time      time.Time
	State     SessionState
	SessionID int64
	Server    string
}

// Registrant holds one instance's ephemeral node in Curator's layout on its
// own ZooKeeper session: the node lives as long as the session. When the
// session expired and the client got a new one, it registers again, as
// Curator's ServiceDiscoveryImpl does on RECONNECTED. Safe for concurrent use.
type Registrant struct {
	cfg    RegistrantConfig
	node   string
	data   []byte
	conn   *zk.Conn
	cur    atomic.Pointer[zk.Conn] // conn, for onEvent (which may run before Connect returns)
	link   *cutDialer
	wake   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	closed sync.Once

	mu        sync.Mutex
	events    []SessionEvent
	regErrors []error
	owner     atomic.Int64 // session that holds the node
	regs      atomic.Int64
}

// Register connects a client (its own session), creates the missing parents
// and the instance's ephemeral node; it returns once the node exists.
func Register(ctx context.Context, cfg RegistrantConfig) (*Registrant, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("registering: %w", err)
	}
	inst := NewServiceInstance(cfg.Service, cfg.ID, cfg.Address, cfg.Port, time.Now())
	data, err := inst.Marshal()
	if err != nil {
		return nil, err
	}
	r := &Registrant{cfg: cfg, data: data, node: path.Join(cfg.Chroot, InstancePath(cfg.BasePath, cfg.Service, cfg.ID)),
		link: &cutDialer{}, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	r.conn, _, err = zk.Connect(cfg.Servers, cfg.SessionTimeout, zk.WithLogger(quiet{}), zk.WithLogInfo(false),
		zk.WithDialer(r.link.dial), zk.WithEventCallback(r.onEvent))
	if err != nil {
		return nil, fmt.Errorf("registering %s: %w", r.node, err)
	}
	r.cur.Store(r.conn)
	if err := r.register(ctx); err != nil {
		close(r.done) // no keeper
		r.Close()
		return nil, err
	}
	go r.keep()
	return r, nil
}

// onEvent records a session event and wakes the keeper (never blocks: it runs
// on the client's own goroutine).
func (r *Registrant) onEvent(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	var sid int64
	if c := r.cur.Load(); c != nil {
		sid = c.SessionID()
	}
	r.mu.Lock()
	r.events = append(r.events, SessionEvent{Time: time.Now(), State: sessionState(ev.State), SessionID: sid, Server: ev.Server})
	r.mu.Unlock()
	if ev.State == zk.StateHasSession {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

// keep registers again whenever the client holds a session that does not own
// the node (after an expiry).
func (r *Registrant) keep() {
	defer close(r.done)
	for {
		select {
		case <-r.stop:
			return
		case <-r.wake:
		}
		if r.conn.SessionID() == r.owner.Load() {
			continue
		}
		if !r.backOff() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*r.cfg.CallTimeout)
		if err := r.register(ctx); err != nil {
			r.mu.Lock()
			r.regErrors = append(r.regErrors, err)
			r.mu.Unlock()
		}
		cancel()
	}
}

// backOff waits the registrant's rejoin delay; false when it was stopped
// meanwhile.
func (r *Registrant) backOff() bool {
	if r.cfg.RejoinDelay == nil {
		return true
	}
	select {
	case <-r.stop:
		return false
	case <-time.After(r.cfg.RejoinDelay()):
		return true
	}
}

// register waits for a session, creates the parents and the ephemeral node;
// a node left by an earlier session is deleted first (Curator's
// internalRegisterService does the same on NodeExists).
func (r *Registrant) register(ctx context.Context) error {
	for r.conn.State() != zk.StateHasSession {
		select {
		case <-ctx.Done():
			return fmt.Errorf("registering %s: no session: %w", r.node, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	sid := r.conn.SessionID()
	c, cancel := context.WithTimeout(ctx, 3*r.cfg.CallTimeout)
	defer cancel()
	if err := ensurePath(c, r.conn, path.Dir(r.node)); err != nil {
		return fmt.Errorf("registering %s: %w", r.node, err)
	}
	start := time.Now()
	err := r.create(c)
	if errors.Is(err, zk.ErrNodeExists) {
		_ = within(c, "deleting the stale "+r.node, func() error { return r.conn.Delete(r.node, -1) })
		err = r.create(c)
	}
	if r.cfg.OnRegister != nil {
		r.cfg.OnRegister(start, time.Now(), err)
	}
	if err != nil {
		return fmt.Errorf("registering %s: %w", r.node, err)
	}
	r.owner.Store(sid)
	r.regs.Add(1)
	return nil
}

func (r *Registrant) create(ctx context.Context) error {
	return within(ctx, "creating "+r.node, func() error {
		_, err := r.conn.Create(r.node, r.data, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		return err
	})
}

// Node returns the instance's node (chroot included).
func (r *Registrant) Node() string { return r.node }

// Registrations returns how many times the node was created.
func (r *Registrant) Registrations() int64 { return r.regs.Load() }

// SessionID returns the client's current session id (0 while it has none).
func (r *Registrant) SessionID() int64 { return r.conn.SessionID() }

// Events returns the session state changes so far.
func (r *Registrant) Events() []SessionEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]SessionEvent(nil), r.events...)
}

// Errors returns the re-registrations that failed so far.
func (r *Registrant) Errors() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.regErrors...)
}

// Cut cuts the client's link to every member, as a network fault would: its
// connections close and it cannot connect again until Heal, so it sends no
// closeSession; the server expires the session after the negotiated timeout
// and deletes the node then.
func (r *Registrant) Cut() { r.link.cutNow() }

// Heal lets the client connect again: within the session timeout it resumes
// its session (the node was never gone); after it, the server says the session
// expired, the client opens a new one, and the registrant registers again.
func (r *Registrant) Heal() { r.link.heal() }

// Crash is Cut for good: the client is cut off as a killed process would be.
func (r *Registrant) Crash() { r.link.cutNow() }

// Close ends the session (closeSession: the server deletes the node at once
// unless Crash came first) and stops the client.
func (r *Registrant) Close() {
	r.closed.Do(func() {
		close(r.stop)
		r.conn.Close()
		<-r.done // a re-registration in flight ends within its own deadline
	})
}
