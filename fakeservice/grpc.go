package fakeservice

import (
	"context"
	"fmt"
	"net"
	"strconv"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/naming/endpoints"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// GRPCPrefix is the root of the keys that etcd's naming endpoints manager
// reads (go.etcd.io/etcd/client/v3/naming/endpoints): an instance of
// service S with gRPC address A is the key GRPCPrefix+S+"/"+A, whose value
// is the manager's JSON update. It lies outside Prefix, so the scenarios'
// counts of /svc/ keys are unchanged.
const GRPCPrefix = "grpc/"

// GRPCTarget returns the endpoints-manager target of service (the name a
// gRPC client resolves as "etcd:///"+GRPCTarget(service)).
func GRPCTarget(service string) string { return GRPCPrefix + service }

// grpcSide is an instance's gRPC server: the standard health service.
type grpcSide struct {
	addr string
	srv  *grpc.Server
}

// startGRPC serves the gRPC health service (reporting SERVING) on
// host:port.
func startGRPC(host string, port int) (*grpcSide, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listening for gRPC: %w", err)
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	go func() { _ = srv.Serve(ln) }()
	return &grpcSide{addr: ln.Addr().String(), srv: srv}, nil
}

// stop closes the listener and every connection at once (a crash).
func (g *grpcSide) stop() {
	if g != nil {
		g.srv.Stop()
	}
}

// addEndpoint registers the gRPC address in the endpoints manager's format
// on the given lease.
func addEndpoint(ctx context.Context, cli *clientv3.Client, service, addr string, lease clientv3.LeaseID) error {
	em, err := endpoints.NewManager(cli, GRPCTarget(service))
	if err != nil {
		return fmt.Errorf("endpoints manager: %w", err)
	}
	key := GRPCTarget(service) + "/" + addr
	if err := em.AddEndpoint(ctx, key, endpoints.Endpoint{Addr: addr}, clientv3.WithLease(lease)); err != nil {
		return fmt.Errorf("adding gRPC endpoint %s: %w", key, err)
	}
	return nil
}
