package xds

import (
	"fmt"

	"sdchaos/history"
)

// Component names of the xDS world (history.Component.Name).
const (
	ComponentEtcd         = "etcd server"
	ComponentControlPlane = "go-control-plane"
	ComponentEnvoyAPI     = "go-control-plane envoy API"
	ComponentGRPC         = "gRPC-Go"
)

// describeWorld is what the run's metadata keeps of the xDS world: etcd's
// members, the control plane's and the clients' modules as built.
func describeWorld(members int) history.World {
	srv := history.GoModule(ComponentEtcd, history.RoleServer, history.EtcdServerModule,
		fmt.Sprintf("%d etcd members, each its own process hosting embed.Etcd (the registry behind the control plane)", members))
	cp := history.GoModule(ComponentControlPlane, history.RoleServer, ModuleControlPlane,
		"the control plane: snapshot cache (ADS) and ADS server, its own process")
	return history.World{
		Server: fmt.Sprintf("go-control-plane %s over etcd %s (%d members started by the harness)", cp.Version, srv.Version, members),
		Components: []history.Component{srv, cp,
			history.GoModule(ComponentEnvoyAPI, history.RoleServer, ModuleEnvoyAPI, "the control plane's xDS resources"),
			history.GoModule(ComponentGRPC, history.RoleClient, ModuleGRPC, "the xDS clients (xds:/// resolver), each its own process; the policy callers' ADS reads")},
	}
}
