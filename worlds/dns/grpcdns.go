package dns

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"sdchaos/caller"
	"sdchaos/history"
)

// GRPCConfig describes a real gRPC client whose addresses come from
// gRPC-Go's dns resolver asking the world's DNS server.
type GRPCConfig struct {
	// Name labels the client's ops.
	Name string
	// Rate is the open-loop call rate per second.
	Rate float64
	// Server is the DNS server's address ("127.0.0.1:port"), the target's
	// authority.
	Server string
	// Host is the name resolved (A records) and Port the port dialed on
	// every address (the resolver reads no SRV: GRPCDNSBasis).
	Host string
	Port int
	// CallTimeout bounds each call.
	CallTimeout time.Duration
}

// Target returns the client's target, dns://SERVER/HOST:PORT.
func (c GRPCConfig) Target() string {
	return "dns://" + c.Server + "/" + net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
}

// GRPCCaller is gRPC-Go's dns resolver with round_robin calling the
// instances' health service, one op per call (history.OpCall, Target the
// peer).
type GRPCCaller struct {
	cfg  GRPCConfig
	conn *grpc.ClientConn
}

// NewGRPCCaller builds the client connection (it resolves and connects
// lazily, on the first call).
func NewGRPCCaller(cfg GRPCConfig) (*GRPCCaller, error) {
	conn, err := grpc.NewClient(cfg.Target(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(`{"loadBalancingConfig":[{"round_robin":{}}]}`))
	if err != nil {
		return nil, fmt.Errorf("real client %s: building %s: %w", cfg.Name, cfg.Target(), err)
	}
	return &GRPCCaller{cfg: cfg, conn: conn}, nil
}

// Name returns the client's name.
func (g *GRPCCaller) Name() string { return g.cfg.Name }

// Prime makes one successful call (waiting for a ready address), so the
// client holds its addresses before time zero.
func (g *GRPCCaller) Prime(ctx context.Context) error {
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := healthpb.NewHealthClient(g.conn).Check(c, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
		return fmt.Errorf("real client %s: first call through %s: %w", g.cfg.Name, g.cfg.Target(), err)
	}
	return nil
}

// Run calls the health service on the schedule from rec's time zero for
// d, recording every call.
func (g *GRPCCaller) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	hc := healthpb.NewHealthClient(g.conn)
	var wg sync.WaitGroup
	err := caller.Schedule{T0: rec.T0(), Rate: g.cfg.Rate}.Pace(ctx, d, func(k int, due time.Time) {
		wg.Add(1)
		go func() { defer wg.Done(); rec.Add(g.call(ctx, hc, rec, k, due)) }()
	})
	wg.Wait()
	return err
}

func (g *GRPCCaller) call(ctx context.Context, hc healthpb.HealthClient, rec *history.Recorder, k int, due time.Time) history.Op {
	op := history.Op{Caller: g.cfg.Name, Kind: history.OpCall, Via: g.cfg.Server, Seq: k, Scheduled: rec.Offset(due),
		Start: rec.Offset(time.Now()), Paced: true}
	return caller.HealthCheck(ctx, hc, g.cfg.CallTimeout, rec, op)
}

// Close closes the client connection (and its resolver).
func (g *GRPCCaller) Close() { _ = g.conn.Close() }
