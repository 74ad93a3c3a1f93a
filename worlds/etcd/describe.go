package etcd

import (
	"fmt"
	"strings"

	"sdchaos/history"
)

// Component names of the etcd world (history.Component.Name).
const (
	EtcdServerComponent = "etcd server"
	EtcdClientComponent = "etcd client (clientv3)"
	GRPCComponent       = "gRPC-Go"
)

// etcdClients are the Go clients every etcd run uses, from the build info.
func etcdClients() []history.Component {
	users := "the harness: instances, callers, probes, real gRPC clients"
	return []history.Component{
		history.GoModule(EtcdClientComponent, history.RoleClient, "go.etcd.io/etcd/client/v3", users),
		history.GoModule(GRPCComponent, history.RoleClient, "google.golang.org/grpc", users+" (and etcd's own gRPC)"),
	}
}

// embeddedEtcd describes a cluster of size members the harness runs: each
// its own process hosting etcd's server module at the version this binary
// was built with.
func embeddedEtcd(size int) history.World {
	srv := history.GoModule(EtcdServerComponent, history.RoleServer, history.EtcdServerModule,
		fmt.Sprintf("%d etcd members, each its own process hosting embed.Etcd", size))
	return history.World{Server: fmt.Sprintf("etcd %s (%s, %d members started by the harness)", srv.Version, srv.Coordinates, size),
		Components: append([]history.Component{srv}, etcdClients()...)}
}

// remoteEtcd describes the members another process of a sharded run
// started (shard 0's): the version is the one this binary embeds, which
// every shard of the run shares.
func remoteEtcd(urls []string) history.World {
	w := embeddedEtcd(len(urls))
	w.Components[0].UsedBy = fmt.Sprintf("%d etcd members started by another process of this sharded run", len(urls))
	w.Server = fmt.Sprintf("etcd %s (%s, %d members started by shard 0 of the run)", w.Components[0].Version, w.Components[0].Coordinates, len(urls))
	return w
}

// externalEtcd describes a cluster the run attached to: its version as its
// first member reports it (Status).
func externalEtcd(version string, endpoints []string) history.World {
	srv := history.Component{Name: EtcdServerComponent, Role: history.RoleServer, Coordinates: strings.Join(endpoints, ","),
		Version: version, UsedBy: "an external cluster the harness did not start", Source: "the first member's Status (Maintenance API)"}
	return history.World{Server: fmt.Sprintf("etcd %s (external cluster %s)", version, srv.Coordinates),
		Components: append([]history.Component{srv}, etcdClients()...)}
}
