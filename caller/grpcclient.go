package caller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/naming/resolver"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"sdchaos/clock"
	"sdchaos/etcdcli"
	"sdchaos/history"
)

// Balancer is the load-balancing policy of a real gRPC client.
type Balancer string

// gRPC's built-in balancers.
const (
	// RoundRobin spreads calls over every READY subchannel.
	RoundRobin Balancer = "round_robin"
	// PickFirst sends every call to the first address it can connect to.
	PickFirst Balancer = "pick_first"
)

// GRPCConfig describes a real client: a gRPC client connection whose
// addresses come from etcd's naming resolver (a watch on the endpoints
// manager's keys), calling the standard health service open loop.
type GRPCConfig struct {
	// Name labels the client's ops.
	Name string
	// Rate is the open-loop call rate per second.
	Rate float64
	// Balancer is the gRPC load-balancing policy.
	Balancer Balancer
	// CallTimeout bounds each call.
	CallTimeout time.Duration
	// Endpoints are the etcd endpoints the resolver's client dials.
	Endpoints []string
	// Target is the endpoints manager's target (keys Target/<addr>).
	Target string
	// Start, when positive, makes the client start cold at T0+Start (a
	// restarted process): its resolver is built then.
	Start time.Duration
}

// GRPCCaller is a real client (etcd resolver + gRPC balancer) as Traffic.
type GRPCCaller struct {
	cfg  GRPCConfig
	mu   sync.Mutex
	cli  *clientv3.Client
	conn *grpc.ClientConn
}

// NewGRPCCaller returns a real client; it connects in Prime (or at Start).
func NewGRPCCaller(cfg GRPCConfig) *GRPCCaller { return &GRPCCaller{cfg: cfg} }

// Name returns the client's name.
func (g *GRPCCaller) Name() string { return g.cfg.Name }

// Prime builds the connection and makes one successful call, so the client
// holds its addresses before time zero.
func (g *GRPCCaller) Prime(ctx context.Context) error {
	if err := g.connect(); err != nil {
		return err
	}
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := healthpb.NewHealthClient(g.conn).Check(c, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
		return fmt.Errorf("real client %s: first call: %w", g.cfg.Name, err)
	}
	return nil
}

// connect creates the resolver's etcd client and the gRPC client connection.
func (g *GRPCCaller) connect() error {
	cli, err := etcdcli.New(g.cfg.Endpoints...)
	if err != nil {
		return err
	}
	b, err := resolver.NewBuilder(cli)
	if err != nil {
		cli.Close()
		return fmt.Errorf("real client %s: resolver: %w", g.cfg.Name, err)
	}
	sc := fmt.Sprintf(`{"loadBalancingConfig":[{%q:{}}]}`, g.cfg.Balancer)
	conn, err := grpc.NewClient("etcd:///"+g.cfg.Target, grpc.WithResolvers(b),
		grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDefaultServiceConfig(sc))
	if err != nil {
		cli.Close()
		return fmt.Errorf("real client %s: dialing: %w", g.cfg.Name, err)
	}
	g.mu.Lock()
	g.cli, g.conn = cli, conn
	g.mu.Unlock()
	return nil
}

// Run calls the health service on the schedule from rec's time zero for d
// (from Start when set, connecting then), recording every call.
func (g *GRPCCaller) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	if err := clock.SleepUntil(ctx, rec.T0().Add(g.cfg.Start)); err != nil {
		return err
	}
	if g.cfg.Start > 0 {
		rec.Event(time.Now(), history.Event{Kind: history.CallerStart, Phase: history.Once, Targets: []string{g.cfg.Name},
			Label: "real client " + g.cfg.Name + " starts"})
		if err := g.connect(); err != nil {
			return err
		}
	}
	hc := healthpb.NewHealthClient(g.conn)
	var wg sync.WaitGroup
	err := Schedule{T0: rec.T0(), Rate: g.cfg.Rate}.PaceFrom(ctx, g.cfg.Start, d, func(k int, due time.Time) {
		wg.Add(1)
		go func() { defer wg.Done(); rec.Add(g.call(ctx, hc, rec, k, due)) }()
	})
	wg.Wait()
	return err
}

func (g *GRPCCaller) call(ctx context.Context, hc healthpb.HealthClient, rec *history.Recorder, k int, due time.Time) history.Op {
	op := history.Op{Caller: g.cfg.Name, Kind: history.OpCall, Seq: k, Scheduled: rec.Offset(due), Start: rec.Offset(time.Now()), Paced: true}
	return HealthCheck(ctx, hc, g.cfg.CallTimeout, rec, op)
}

// HealthCheck makes one call of an instance's gRPC health service through
// hc, bounded by timeout, and returns op with its end, the instance that
// answered (Target) and its outcome (a deadline is Unknown).
func HealthCheck(ctx context.Context, hc healthpb.HealthClient, timeout time.Duration, rec *history.Recorder, op history.Op) history.Op {
	c, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var p peer.Peer
	_, err := hc.Check(c, &healthpb.HealthCheckRequest{}, grpc.Peer(&p))
	op.End, op.Outcome = rec.Offset(time.Now()), history.OK
	if p.Addr != nil {
		op.Target = p.Addr.String()
	}
	if err != nil {
		op.Outcome, op.Err = grpcOutcome(err), err.Error()
	}
	return op
}

// grpcOutcome maps a gRPC error to an outcome: a deadline is Unknown.
func grpcOutcome(err error) history.Outcome {
	if status.Code(err) == codes.DeadlineExceeded || errors.Is(err, context.DeadlineExceeded) {
		return history.Unknown
	}
	return history.Fail
}

// Close closes the connection and the resolver's etcd client.
func (g *GRPCCaller) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.conn != nil {
		g.conn.Close()
	}
	if g.cli != nil {
		g.cli.Close()
	}
}
