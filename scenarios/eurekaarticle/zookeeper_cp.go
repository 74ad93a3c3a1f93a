package eurekaarticle

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"sdchaos/caller"
	"sdchaos/experiment"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/jvm"
	"sdchaos/rig"
	"sdchaos/scenarios"
	"sdchaos/worlds/zookeeper"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Ground:  scenarios.OwnMembers, // ZooKeeper members of its own; --net private for the packet variants
		Name:    "zookeeper-cp",
		Article: "Eureka article 1 (CP vs AP)",
		Summary: "kill or cut off a ZooKeeper member: what each member refuses and what Curator and Spring clients get, beside real Eureka losing a server",
		Help:    zkCPHelp,
		New: func() scenarios.Config {
			return &zkCP{Fault: cpKillLeader, FaultAt: 10 * time.Second, For: 30 * time.Second, Rate: 40, Instances: 3,
				Beside: true, Fetch: 30 * time.Second}
		},
		Variants: []scenarios.Variant{
			{Name: "cut-leader", Args: []string{"--fault", "cut-leader", "--beside-eureka=false"},
				Why: "a partition: the leader cut off from its peers (its peer links blackholed), its clients still reaching it"},
			{Name: "cut-follower", Args: []string{"--fault", "cut-follower", "--beside-eureka=false"},
				Why: "a follower cut off from its peers: the majority keeps a quorum, the follower stops serving after syncLimit ticks"},
			{Name: "packets", Args: []string{"--net", "private", "--packets", "--beside-eureka=false"},
				Why: "the leader lost as dropped packets (every packet of its ports), its process alive: TCP retransmits instead of a closed socket"},
			{Name: "cut-leader-packets", Args: []string{"--net", "private", "--packets", "--fault", "cut-leader", "--beside-eureka=false"},
				Why: "the partition made of dropped packets between the leader and its peers"},
		},
	})
}

const zkCPHelp = `The Eureka article's case against ZooKeeper: "ZooKeeper's CP model has an obvious hazard: during a
network partition or a leader election ZooKeeper briefly refuses reads and writes, and every service
that depends on it gets stuck … Eureka keeps serving from the client's local copy of the registry."
This scenario measures it on a real ZooKeeper 3.9.5 ensemble beside real Netflix Eureka.

Setup: three ZooKeeper members (each its own JVM, zoo.cfg with ZooKeeper's sample timing: tickTime
2 s, initLimit 10, syncLimit 5), --instances instances registered as ephemeral nodes in Curator's
service-discovery layout (each its own session of 20 s), and four callers at --rate calls/s: keep
and clear (the harness's policy callers over go-zookeeper, refresh every 1 s with a 500 ms deadline),
curator-servicecache (Curator 5.9.0 ServiceDiscovery + ServiceCache + RoundRobinStrategy, a JVM) and
spring-cloud-zookeeper (Spring Cloud Zookeeper 5.0.2 + Spring Cloud LoadBalancer at its defaults, a
JVM). Every member is asked all along, alone: a read (the instance list) and a write on a session
pinned to it every 250 ms, a registration on a new session every second (2 s deadline each), and
its own state (srvr) every 200 ms.

Timeline (--fault): kill-leader (default) SIGKILLs the leader at --fault-at and starts it again
--for later; cut-leader and cut-follower cut that member off from its peers for --for (every member
reaches each peer through links of its own; the cut blackholes the member's links both ways, its
clients still reach it). With --packets (needs --net private) the fault is made of dropped packets
instead: every packet of the leader's ports (kill-leader: it vanishes from the network, its process
alive) or every packet between the member and its peers. With --beside-eureka (default on) the same
run then starts real Eureka (three Spring Cloud Netflix servers, a Java DiscoveryClient fetching
every --eureka-fetch, the harness's tasks at --rate over its cached list, 50 Go workers) at real time
and SIGKILLs the server the client fetches from at --fault-at: one table and one figure put the two
side by side.

Measured: per member, when it was not serving (its own srvr) and when reads, writes and
registrations through it were refused, from the fault; per caller and second, ok and failed calls;
Curator's connection states (SUSPENDED, LOST, RECONNECTED); on Eureka, failed tasks, failed fetch
attempts and the switch to a live server.

Bands (ZooKeeper 3.9.5, Curator 5.9.0, Spring Cloud 2025.1; docs/zookeeper.md gives every line):
- A follower whose leader was SIGKILLed sees the socket close and goes LOOKING at once
  (Follower.java:122-127); a LOOKING member refuses every request, reads included ("ZooKeeperServer
  not running", NIOServerCnxn.java:571-572; read-only mode is off by default, QuorumPeer.java:1473);
  a successful election takes at most initLimit × tickTime + 2 × finalizeWait (Leader.java:1532,
  1643; FastLeaderElection.java:62, 1050): 20.4 s. So every survivor refuses for a while (the
  article's "briefly refuses reads and writes" is a yes), for at most that bound plus the probe's
  deadline and go-zookeeper's 1 s pause before it reconnects.
- A follower cut off from its leader serves reads until its read timeout of syncLimit × tickTime
  (Learner.java:815), 10 s, a leader without a quorum of acks for syncLimit + 1 ticks (Leader.java:
  778, 832-848), 12 s; writes and new sessions need the leader and a quorum and wait meanwhile.
- Curator's ServiceCache changes its list only on child events, never on SUSPENDED or LOST
  (ServiceCacheImpl.java:160-172): a Curator client keeps calling live instances while ZooKeeper
  refuses, so "every service gets stuck" differs for it, with the measured cause. LOST comes only
  after a whole session timeout SUSPENDED (Curator's default 60 s, granted 40 s: 20 ticks;
  ConnectionStateManager.java:240-300).
- Spring Cloud LoadBalancer caches the list 35 s (LoadBalancerCacheProperties.java:42): a caller
  fails only if that cache expires while no member serves it (an empty list is never cached).
- A policy caller that clears its list on a failed refresh fails from its first failed refresh while
  no member serves; one that keeps it fails nothing.
- Real Eureka (the source rules of eureka-failover): the client switches at its next fetch, the
  tasks run on the cached registry: no task fails.

Article: the claim is judged per member (refuses: yes) and per caller (gets stuck: yes); reproduced
where the run shows it, differs where a caching client served on (the cause names what it measured).`

// cpFault is --fault.
type cpFault string

// The faults of zookeeper-cp.
const (
	cpKillLeader  cpFault = "kill-leader"
	cpCutLeader   cpFault = "cut-leader"
	cpCutFollower cpFault = "cut-follower"
)

func (f *cpFault) String() string { return string(*f) }

// Set parses kill-leader, cut-leader or cut-follower.
func (f *cpFault) Set(v string) error {
	switch cpFault(v) {
	case cpKillLeader, cpCutLeader, cpCutFollower:
		*f = cpFault(v)
		return nil
	}
	return fmt.Errorf("want %s, %s or %s, got %q", cpKillLeader, cpCutLeader, cpCutFollower, v)
}

// zkCP is the scenario's parameters.
type zkCP struct {
	Fault     cpFault
	Packets   bool
	FaultAt   time.Duration
	For       time.Duration
	Rate      float64
	Instances int
	Beside    bool
	Fetch     time.Duration
}

// The callers of zookeeper-cp, in table order.
const (
	cpKeep    = "keep"
	cpClear   = "clear"
	cpCurator = zookeeper.ClientCurator
	cpSpring  = zookeeper.ClientSpring
)

// cpCallers are the ZooKeeper callers, in table order.
var cpCallers = []string{cpCurator, cpSpring, cpKeep, cpClear}

// cpEvery is how often the member watch asks each operation of every
// member: its state (srvr) every 200 ms, a read and a write every 250 ms,
// a registration (a new session: a write of its own) every second.
var cpEvery = map[experiment.ProbeOp]time.Duration{zookeeper.ZKMode: 200 * time.Millisecond, experiment.List: 250 * time.Millisecond,
	zookeeper.ZKWrite: 250 * time.Millisecond, experiment.Register: time.Second}

// Defaults sets --duration to the fault, its length and 20 s after.
func (s *zkCP) Defaults(c *scenarios.Common) { c.Duration = s.FaultAt + s.For + 20*time.Second }

// Flags binds the scenario's flags.
func (s *zkCP) Flags(fs *flag.FlagSet) {
	fs.Var(&s.Fault, "fault", "kill-leader (SIGKILL, restarted --for later), cut-leader or cut-follower (cut off from its peers for --for)")
	fs.BoolVar(&s.Packets, "packets", s.Packets, "make the fault of dropped packets (needs --net private): every packet of the leader's ports, or between the member and its peers")
	fs.DurationVar(&s.FaultAt, "fault-at", s.FaultAt, "when the fault is injected")
	fs.DurationVar(&s.For, "for", s.For, "how long the fault lasts (a killed leader is started again then)")
	scenarios.BindRate(fs, &s.Rate, "calls of each caller")
	fs.IntVar(&s.Instances, "instances", s.Instances, "instances registered in ZooKeeper")
	fs.BoolVar(&s.Beside, "beside-eureka", s.Beside, "then run real Eureka (three servers, a Java DiscoveryClient) and SIGKILL the server its client fetches from, at real time")
	fs.DurationVar(&s.Fetch, "eureka-fetch", s.Fetch, "the Eureka client's registry fetch interval (whole seconds; Eureka's default 30s)")
}

// Validate refuses values the run cannot make.
func (s *zkCP) Validate(c scenarios.Common) error {
	if err := scenarios.ValidateRate(s.Rate, 1000); err != nil {
		return err
	}
	switch {
	case s.Packets && c.Net != rig.Private && !c.Saved:
		return scenarios.Usagef("--packets drops packets in the run's own network: add --net private")
	case s.FaultAt < 2*time.Second || s.For < time.Second:
		return scenarios.Usagef("--fault-at (%s) must be at least 2s and --for (%s) at least 1s", s.FaultAt, s.For)
	case c.Duration < s.FaultAt+s.For+5*time.Second:
		return scenarios.Usagef("--duration (%s) must be at least --fault-at + --for + 5s (%s)", c.Duration, s.FaultAt+s.For+5*time.Second)
	case s.Instances < 1 || s.Instances > 50:
		return scenarios.Usagef("--instances (%d) must be within 1–50", s.Instances)
	case s.Beside && (s.Fetch < time.Second || s.Fetch%time.Second != 0):
		return scenarios.Usagef("--eureka-fetch (%s) must be whole seconds (the Java client takes seconds)", s.Fetch)
	case s.Beside && c.Duration < s.FaultAt+s.Fetch+5*time.Second:
		return scenarios.Usagef("--duration (%s) must be at least --fault-at + --eureka-fetch + 5s (%s) for the Eureka run", c.Duration, s.FaultAt+s.Fetch+5*time.Second)
	}
	if ef := s.eurekaPart(); s.Beside {
		if err := ef.eu.runsAt(1, ef.Fetches); err != nil {
			return scenarios.Usagef("--beside-eureka: real Eureka cannot run this at real time: %v", err)
		}
	}
	return nil
}

// cpData is what a zookeeper-cp run keeps beside its ops and events.
type cpData struct {
	Fault   cpFault `json:"fault"`
	Packets bool    `json:"packets"`
	// Victim is the member the fault hit; Members every member's name.
	Victim  string   `json:"victim"`
	Members []string `json:"members"`
	// TickTime, InitLimit and SyncLimit are the ensemble's timing; Session
	// the instances' session timeout.
	TickTime  time.Duration `json:"tick_ns"`
	InitLimit int           `json:"init_limit"`
	SyncLimit int           `json:"sync_limit"`
	Session   time.Duration `json:"session_ns"`
	// QuorumAfter is how long the members took from launch to a quorum;
	// JavaReady how long the Java callers took from launch to ready.
	QuorumAfter time.Duration `json:"quorum_after_ns"`
	JavaReady   time.Duration `json:"java_ready_ns"`
	// Memory is what the JVMs held (RSS, MiB).
	Memory zookeeper.Memory `json:"memory"`
	// ZooKeeperWall and EurekaWall are the wall times of the two parts.
	ZooKeeperWall time.Duration `json:"zookeeper_wall_ns"`
	EurekaWall    time.Duration `json:"eureka_wall_ns,omitempty"`
	// Eureka is the real Eureka part's history (nil without it), its own
	// time zero; EurekaFetch its client's fetch interval.
	Eureka      *history.History `json:"eureka,omitempty"`
	EurekaFetch time.Duration    `json:"eureka_fetch_ns,omitempty"`
	// EurekaErr says why the Eureka part did not run (its servers did not
	// start in time on a loaded machine, say): its checks are then invalid.
	EurekaErr string `json:"eureka_err,omitempty"`
}

// Run runs the ZooKeeper part through the one run path, then (with
// --beside-eureka) the real Eureka part, and keeps both in one history.
func (s *zkCP) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	d := env.Duration
	data := &cpData{Fault: s.Fault, Packets: s.Packets}
	t0 := time.Now()
	h, err := rig.Run(ctx, env, zookeeper.NewZooKeeperWorld(env, s.options(), s.plan(env, data)))
	if err != nil {
		return nil, err
	}
	data.ZooKeeperWall = time.Since(t0)
	if s.Beside {
		env.Duration = d
		t1 := time.Now()
		data.Eureka, err = s.runEureka(ctx, env)
		switch {
		case errors.Is(err, jvm.ErrNoJava) || errors.Is(err, jvm.ErrNoMaven) || errors.Is(err, jvm.ErrBuild) || ctx.Err() != nil:
			return nil, fmt.Errorf("the real Eureka part: %w", err)
		case err != nil:
			data.EurekaErr = err.Error()
			env.Printf("zookeeper-cp: the real Eureka part did not run: %v", err)
		}
		data.EurekaWall, data.EurekaFetch = time.Since(t1), s.Fetch
	}
	if err := h.SetData(data); err != nil {
		return nil, err
	}
	return h, nil
}

// options is the ensemble: ZooKeeper's sample timing, peer links for a cut
// or a packet fault.
func (s *zkCP) options() zookeeper.ZooKeeperOptions {
	cfg := zookeeper.DefaultConfig()
	cfg.PeerLinks = s.Fault != cpKillLeader || s.Packets
	return zookeeper.ZooKeeperOptions{Ensemble: cfg, Instances: s.Instances, Session: zookeeper.ArticleSessionTimeout}
}

// plan is the ZooKeeper part: the callers, the member watch, the fault.
func (s *zkCP) plan(env *scenarios.Env, data *cpData) zookeeper.ZooKeeperPlan {
	var policy []caller.Config
	for _, name := range []string{cpKeep, cpClear} {
		c := caller.DefaultConfig(name)
		c.Rate, c.RefreshTimeout, c.CallTimeout = s.Rate, rig.RefreshTimeout, rig.CallTimeout
		c.RefreshPhase = time.Duration(env.Rand.Int64N(int64(c.Refresh)))
		if name == cpClear {
			c.Policy.OnError = caller.ClearList
		}
		policy = append(policy, c)
	}
	return zookeeper.ZooKeeperPlan{Callers: policy, CallTimeout: rig.CallTimeout,
		Java: []zookeeper.JavaClient{{Name: cpCurator, Mode: zookeeper.Curator, Rate: s.Rate}, {Name: cpSpring, Mode: zookeeper.Spring, Rate: s.Rate}},
		Traffic: func(ctx context.Context, z *zookeeper.ZooKeeper) ([]caller.Traffic, error) {
			w, err := z.NewMemberWatch(ctx, cpEvery)
			return []caller.Traffic{w}, err
		},
		Timeline: func(ctx context.Context, z *zookeeper.ZooKeeper) (fault.Timeline, error) {
			return s.timeline(ctx, env, z, data)
		},
		Finish: func(_ context.Context, z *zookeeper.ZooKeeper, _ *history.Recorder) (any, error) {
			cfg := z.Ensemble.Config()
			data.TickTime, data.InitLimit, data.SyncLimit, data.Session = cfg.TickTime, cfg.InitLimit, cfg.SyncLimit, z.Session
			data.QuorumAfter, data.JavaReady, data.Memory = z.Ensemble.StartTime, z.JavaReady, z.Memory
			for _, m := range z.Ensemble.Members() {
				data.Members = append(data.Members, m.Name)
			}
			return data, nil
		}}
}

// timeline finds the victim and makes the fault.
func (s *zkCP) timeline(ctx context.Context, env *scenarios.Env, z *zookeeper.ZooKeeper, data *cpData) (fault.Timeline, error) {
	e := z.Ensemble
	leader, err := e.WaitQuorum(ctx, 30*time.Second)
	if err != nil {
		return nil, err
	}
	victim := leader
	if s.Fault == cpCutFollower {
		for _, m := range e.Members() {
			if m != leader {
				victim = m
				break
			}
		}
	}
	data.Victim = victim.Name
	var f fault.Fault
	switch {
	case s.Packets:
		filter, err := env.Filter()
		if err != nil {
			return nil, err
		}
		ports := e.PeerPorts(victim)
		if s.Fault == cpKillLeader {
			ports = append(ports, victim.Ports.Client)
		}
		f = &zookeeper.DropZooKeeperPackets{Filter: filter, Member: victim.Name, Ports: ports, Peers: s.Fault != cpKillLeader, Loss: 1}
	case s.Fault == cpKillLeader:
		f = zookeeper.KillZooKeeper{Members: []*zookeeper.Member{victim}}
	default:
		f = zookeeper.CutZooKeeperMember{Member: victim.Name, Links: e.PeerLinksOf(victim)}
	}
	env.Printf("zookeeper-cp: %s is %s; %s at %s for %s", victim.Name, map[bool]string{true: "the leader", false: "a follower"}[victim == leader],
		f.Describe().Label, s.FaultAt, s.For)
	return fault.Timeline{{At: s.FaultAt, For: s.For, Fault: f}}, nil
}

// runEureka runs the real Eureka part: eureka-failover's plan at real time
// (time scale 1) with one client fetching every --eureka-fetch, its server
// SIGKILLed at --fault-at.
func (s *zkCP) runEureka(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	ef := s.eurekaPart()
	return ef.Run(ctx, env)
}

// eurekaPart is the eureka-failover configuration of the Eureka part.
func (s *zkCP) eurekaPart() *eurekaFailover {
	eu := defaultEurekaParams(1)
	eu.Backend = backendReal
	return &eurekaFailover{eu: eu, Fetches: scenarios.SecondsList{s.Fetch}, Rate: s.Rate, KillAt: s.FaultAt}
}
