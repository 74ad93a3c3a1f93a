//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"flag"
	"fmt"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
	"sdchaos/fault"
	"sdchaos/report"
	"sdchaos/storm"
)

func init() {
	Register(Spec{
		Name:    "reregistration-storm",
		Article: "Nacos article",
		Summary: "N registrants lose the registry longer than their ttl and re-register when it returns: all at once vs jittered back-off",
		Help: `For each size in --instances: a fresh 3-member etcd cluster behind loopback proxies and N
registrants, each with its own etcd client connection (as pods would have) unless the process's
open-file limit forbids it (then the run says how many share one). Each registrant holds a key on
a lease (--ttl) renewed every --renew. Then, once per strategy: every client link is blackholed
and the registrants notice (they stop renewing); once every lease has expired inside etcd the
links heal and the registrants re-register (grant + put, each call with a --call-timeout deadline):
  immediate  all at the moment the link returns (reconnect-driven clients); a failed attempt k
             is retried after min(k, 50) × 100 ms, without jitter (Nacos' reconnect loop)
  jitter     attempt k waits uniform [0, min(--backoff-cap, --backoff-base × 2^k)) (full jitter)
Measured from the heal, per 100 ms: registry calls started and the most in flight; p50/p99
latency of every re-registration call; errors and timeouts; the time until all N are registered
again (bounded by --duration, default 60s per phase).

Reproduced when, for every size, the jitter strategy's peak calls per 100 ms is lower than the
immediate one's (the article's remedy spreads the storm). Whether everyone is back within
--duration, the latencies and the errors are reported as measured, not judged: they say where
etcd starts to hurt on this machine (whose two cores also run the clients and the proxies).`,
		New: func() Config {
			return &reregistrationStorm{Sizes: IntList{1000}, TTL: 10 * time.Second, Renew: 3 * time.Second,
				CallTimeout: 5 * time.Second, Base: time.Second, Cap: 10 * time.Second}
		},
	})
}

// reregistrationStorm is the Nacos article's re-registration storm.
type reregistrationStorm struct {
	Sizes                   IntList
	TTL, Renew, CallTimeout time.Duration
	Base, Cap               time.Duration
	// settle bounds each re-registration phase (--duration).
	settle time.Duration
}

// Defaults makes --duration (the bound of each re-registration phase) 60s.
func (s *reregistrationStorm) Defaults(c *Common) { c.Duration = time.Minute }

func (s *reregistrationStorm) Flags(fs *flag.FlagSet) {
	fs.Var(&s.Sizes, "instances", "registrants, or a comma-separated list of sizes (one row each): 1000,5000,20000")
	fs.DurationVar(&s.TTL, "ttl", s.TTL, "lease ttl of each registrant (whole seconds, ≥ 2s)")
	fs.DurationVar(&s.Renew, "renew", s.Renew, "renewal interval while the link is up")
	fs.DurationVar(&s.CallTimeout, "call-timeout", s.CallTimeout, "deadline of each registry call")
	fs.DurationVar(&s.Base, "backoff-base", s.Base, "jitter strategy: first window of the back-off")
	fs.DurationVar(&s.Cap, "backoff-cap", s.Cap, "jitter strategy: largest window of the back-off")
}

func (s *reregistrationStorm) Validate(c Common) error {
	switch {
	case len(s.Sizes) == 0:
		return Usagef("--instances: give at least one size")
	case s.TTL < 2*time.Second || s.TTL%time.Second != 0:
		return Usagef("--ttl (%s) must be whole seconds, at least 2s", s.TTL)
	case s.Renew <= 0 || s.Renew >= s.TTL:
		return Usagef("--renew (%s) must be positive and shorter than --ttl (%s)", s.Renew, s.TTL)
	case s.CallTimeout <= 0:
		return Usagef("--call-timeout (%s) must be positive", s.CallTimeout)
	case s.Base <= 0 || s.Cap < s.Base:
		return Usagef("--backoff-base (%s) must be positive and at most --backoff-cap (%s)", s.Base, s.Cap)
	}
	for _, n := range s.Sizes {
		if n < 1 || n > 100000 {
			return Usagef("--instances: size %d must be within 1–100000", n)
		}
	}
	return nil
}

// stormRow is one strategy's storm at one size.
type stormRow struct {
	n, clients      int
	strategy        string
	summary         storm.Summary
	started, flight []int
	converged       int
	convergeS       float64
	expireS         float64
	keysAfter       int
	// keysBefore were listed when the link was cut (N unless the steady
	// renewals already overloaded the registry); keysLeft were still listed
	// when the link healed (0 unless the leases did not drain in time).
	keysBefore, keysLeft int
}

// bucketWidth and bucketCount shape the per-100 ms measurement.
const (
	bucketWidth = 100 * time.Millisecond
	bucketCount = 600
)

func (s *reregistrationStorm) Run(ctx context.Context, env *Env) (*report.Result, error) {
	s.settle = env.Duration
	limit := raiseFileLimit()
	start := time.Now()
	var rows []stormRow
	for _, n := range s.Sizes {
		rs, err := s.runSize(ctx, env, n, limit)
		if err != nil {
			return nil, fmt.Errorf("size %d: %w", n, err)
		}
		rows = append(rows, rs...)
	}
	res := s.judge(rows)
	res.TimelineSeconds = time.Since(start).Seconds()
	return res, nil
}

// perClient returns how many registrants must share one client for n to fit
// under the open-file limit: each client holds one connection, which costs
// three descriptors here (client socket and both proxy sides).
func perClient(n int, limit uint64) int {
	const reserve, perConn = 512, 3
	maxClients := max(1, (int(limit)-reserve)/perConn)
	return (n + maxClients - 1) / maxClients
}

func (s *reregistrationStorm) runSize(ctx context.Context, env *Env, n int, limit uint64) ([]stormRow, error) {
	r, err := startRig(ctx, env, serviceParams{}, rigOptions{proxied: true})
	if err != nil {
		return nil, err
	}
	defer r.close()
	log := &storm.Log{}
	fleet, err := storm.NewFleet(storm.FleetConfig{N: n, PerClient: perClient(n, limit), Endpoints: r.endpoints(),
		Prefix: stormPrefix, TTL: s.TTL, Renew: s.Renew, Timeout: s.CallTimeout}, log)
	if err != nil {
		return nil, err
	}
	defer fleet.Close()
	if fleet.Clients() < n {
		env.Printf("open-file limit %d: %d registrants share %d etcd connections", limit, n, fleet.Clients())
	}
	t := time.Now()
	if err := fleet.RegisterAll(ctx, 64); err != nil {
		return nil, fmt.Errorf("registering: %w", err)
	}
	env.Printf("%d registrants registered in %.1f s over %d connections; renewing every %s", n, time.Since(t).Seconds(), fleet.Clients(), s.Renew)
	fleet.StartRenewing(env.Rand)
	direct, err := r.cluster.Client()
	if err != nil {
		return nil, err
	}
	defer direct.Close()
	if err := clock.SleepUntil(ctx, time.Now().Add(s.Renew)); err != nil {
		return nil, err
	}
	var rows []stormRow
	for _, b := range []storm.Backoff{storm.Immediate{}, storm.FullJitter{Base: s.Base, Cap: s.Cap}} {
		row, err := s.storm(ctx, env, r, fleet, log, direct, b, n)
		if err != nil {
			return nil, err
		}
		row.clients = fleet.Clients()
		rows = append(rows, row)
	}
	return rows, nil
}

// storm runs one outage and one re-registration with backoff b.
func (s *reregistrationStorm) storm(ctx context.Context, env *Env, r *rig, fleet *storm.Fleet, log *storm.Log, direct *clientv3.Client, b storm.Backoff, n int) (stormRow, error) {
	name := "immediate"
	if _, ok := b.(storm.FullJitter); ok {
		name = "jitter"
	}
	row := stormRow{strategy: name, n: n}
	link := fault.Blackhole{Proxies: r.proxies}
	row.keysBefore = countPrefix(ctx, direct, stormPrefix)
	start := time.Now()
	if err := link.Inject(ctx); err != nil {
		return row, err
	}
	fleet.LinkDown()
	row.keysLeft = waitNoKeys(ctx, direct, stormPrefix, s.TTL+drainAllowance)
	if ctx.Err() != nil {
		return row, ctx.Err()
	}
	row.expireS = time.Since(start).Seconds()
	if row.keysLeft != 0 {
		env.Printf("%s: %s keys still listed %.0f s after the loss; healing anyway", name, count(row.keysLeft), row.expireS)
	} else {
		env.Printf("%s: every lease expired %.1f s after the loss; healing the links", name, row.expireS)
	}
	if err := link.Heal(ctx); err != nil {
		return row, err
	}
	sctx, cancel := context.WithTimeout(ctx, s.settle)
	var last time.Duration
	row.converged, last = fleet.Reregister(sctx, b, env.Rand)
	cancel()
	if ctx.Err() != nil {
		return row, ctx.Err()
	}
	row.convergeS = last.Seconds()
	recs := log.Records()
	row.summary = storm.Summarize(recs)
	row.started, row.flight = storm.Buckets(recs, bucketWidth, bucketCount)
	row.keysAfter = countPrefix(ctx, direct, stormPrefix)
	env.Printf("%s: %d of %d registered again, the last %.2f s after the link returned (%s keys listed now)",
		name, row.converged, row.n, row.convergeS, count(row.keysAfter))
	return row, nil
}

// drainAllowance is how long after the ttl the leases may take to be
// revoked (etcd revokes at most about 1000 per second).
const drainAllowance = time.Minute

// stormPrefix holds the registrants' keys.
const stormPrefix = "/svc/storm/"

// waitNoKeys polls until no key is left under prefix or limit passes, and
// returns how many are left (0 on success).
func waitNoKeys(ctx context.Context, cli *clientv3.Client, prefix string, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		n := countPrefix(ctx, cli, prefix)
		if n == 0 || time.Now().After(deadline) || clock.SleepUntil(ctx, time.Now().Add(250*time.Millisecond)) != nil {
			return n
		}
	}
}

func countPrefix(ctx context.Context, cli *clientv3.Client, prefix string) int {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return -1
	}
	return int(resp.Count)
}

// raiseFileLimit lifts the open-file limit as far as the process may (to
// 1<<20 when privileged, else the soft limit to the hard one) and returns it.
func raiseFileLimit() uint64 {
	want := syscall.Rlimit{Cur: 1 << 20, Max: 1 << 20}
	if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil {
		return want.Cur
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 1024
	}
	if rl.Cur < rl.Max {
		rl.Cur = rl.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
	}
	return rl.Cur
}
