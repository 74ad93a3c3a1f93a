package xds

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	discoverygrpc "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	serverv3 "github.com/envoyproxy/go-control-plane/pkg/server/v3"
	"google.golang.org/grpc"

	"sdchaos/childproc"
	"sdchaos/etcdcli"
	"sdchaos/ports"
)

// controlPlaneCommand is the hidden sub-command hosting one control plane.
const controlPlaneCommand = "__xds-control-plane"

func init() { childproc.Register(controlPlaneCommand, controlPlaneMain) }

// controlPlaneMain runs go-control-plane's snapshot cache and ADS server on
// 127.0.0.1:--port over the registry until it is killed or told to stop.
func controlPlaneMain(args []string) int {
	log.SetFlags(log.LstdFlags | log.Lmicroseconds | log.LUTC)
	a, err := parseControlPlaneArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, controlPlaneCommand+":", err)
		return 2
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	if err := serveControlPlane(ctx, a); err != nil {
		fmt.Fprintln(os.Stderr, controlPlaneCommand+":", err)
		return 1
	}
	return 0
}

func serveControlPlane(ctx context.Context, a controlPlaneArgs) error {
	ln, err := net.Listen("tcp", ports.Addr(a.Port))
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	cache := cachev3.NewSnapshotCache(true, allNodes{}, nil)
	snaps := newSnapshotter(cache, a.Set, fmt.Sprint(time.Now().UnixNano()))
	if err := snaps.begin(); err != nil {
		return fmt.Errorf("start snapshot: %w", err)
	}
	srv := grpc.NewServer()
	discoverygrpc.RegisterAggregatedDiscoveryServiceServer(srv, serverv3.NewServer(ctx, cache, snaps.callbacks()))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer srv.Stop()
	cli, err := etcdcli.New(a.Etcd...)
	if err != nil {
		return fmt.Errorf("etcd client: %w", err)
	}
	defer cli.Close()
	views := make(chan registryView)
	f, err := newRegistryFollower(cli, a.Set.Service, a.Set.Poll, a.Set.ReadTimeout, views)
	if err != nil {
		return err
	}
	go f.run(ctx)
	go childproc.Serve(controlHandler(snaps))
	log.Printf("serving ADS on %s, start %s, hold %s, on watch fail %s", ln.Addr(), a.Set.Start, a.Set.Hold, a.Set.OnWatchFail)
	return loop(ctx, snaps, views, holdTimer(a.Set), served)
}

// holdTimer fires when the start snapshot's hold ends (never for a hold
// of 0, nor when it follows from the start).
func holdTimer(set ControlPlaneSettings) <-chan time.Time {
	if set.Start == FromRegistry || set.Hold == 0 {
		return nil
	}
	return time.After(set.Hold)
}

func loop(ctx context.Context, snaps *snapshotter, views <-chan registryView, hold <-chan time.Time, served <-chan error) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-served:
			return fmt.Errorf("ADS server: %w", err)
		case <-hold:
			if err := snaps.follow(); err != nil {
				return err
			}
		case v := <-views:
			if err := snaps.view(v); err != nil {
				return err
			}
		}
	}
}

// controlHandler answers "status" (the Status as JSON) and "follow".
func controlHandler(snaps *snapshotter) func(string) (string, error) {
	return func(cmd string) (string, error) {
		switch cmd {
		case "status":
			b, err := json.Marshal(snaps.status())
			return string(b), err
		case "follow":
			return "following", snaps.follow()
		}
		return "", fmt.Errorf("unknown command %q", cmd)
	}
}
