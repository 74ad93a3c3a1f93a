package xds

import (
	"fmt"

	"sdchaos/cluster"
	"sdchaos/experiment"
	"sdchaos/fakeservice"
	"sdchaos/history"
	"sdchaos/rig"
)

// Name is the world's --registry value.
const Name experiment.Registry = "xds"

// The real clients of the xDS world: gRPC-Go's xDS resolver and balancers
// with the bootstrap naming the control plane, without and with gRFC A53's
// ignore_resource_deletion server feature.
const (
	// ClientXDS is gRPC-Go's xDS client, bootstrap features [xds_v3].
	ClientXDS = "grpc-xds"
	// ClientXDSIgnoreDeletion is the same client with the bootstrap
	// features [xds_v3, ignore_resource_deletion].
	ClientXDSIgnoreDeletion = "grpc-xds-ignore-deletion"
)

func init() { rig.RegisterRegistry(xdsRegistry{}) }

// xdsRegistry runs the registry-neutral experiments on the xDS world: a
// real 3-member etcd holding the instances on their leases, a
// go-control-plane control plane (its own process) following it, and
// gRPC-Go's xDS clients (each its own process) fed by that control plane.
type xdsRegistry struct{}

// Name returns "xds".
func (xdsRegistry) Name() experiment.Registry { return Name }

// Describe names the control plane's and the clients' versions as built,
// and the bootstrap's server features.
func (xdsRegistry) Describe() string {
	return fmt.Sprintf("xDS: go-control-plane %s (envoy API %s) over etcd, 3 members; gRPC-Go %s xDS clients, bootstrap server features [%s] or [%s, %s]",
		moduleVersion(ModuleControlPlane), moduleVersion(ModuleEnvoyAPI), moduleVersion(ModuleGRPC),
		featureXDSv3, featureXDSv3, ServerFeatureIgnoreResourceDeletion)
}

// featureXDSv3 is the server feature every bootstrap names (Bootstrap.JSON).
const featureXDSv3 = "xds_v3"

// moduleVersion is a module's version as this binary was built with it
// (a test binary: the go.mod's).
func moduleVersion(path string) string {
	if v, _ := history.ModuleVersion(path); v != "" {
		return v
	}
	return "(version unknown)"
}

// Clients are gRPC-Go's xDS client without and with ignore_resource_deletion.
func (xdsRegistry) Clients() []rig.ClientInfo {
	what := "gRPC-Go " + moduleVersion(ModuleGRPC) + " xds:/// resolver, round_robin from the CDS, its own process; bootstrap features "
	return []rig.ClientInfo{
		{Name: ClientXDS, What: what + "[" + featureXDSv3 + "]"},
		{Name: ClientXDSIgnoreDeletion, What: what + "[" + featureXDSv3 + ", " + ServerFeatureIgnoreResourceDeletion + "] (gRFC A53)"},
	}
}

// Can accepts registry-unreachable (blackhole: the control plane's links
// to etcd; kill: every etcd member), crash-instance and quorum-loss of
// the etcd behind the control plane, with policy callers that read the
// control plane's EDS; it refuses dropped packets, a member cut off, a
// user's program and a ttl the instances cannot keep.
func (r xdsRegistry) Can(x experiment.Experiment) error {
	if err := rig.CheckClients(r, x); err != nil {
		return err
	}
	if err := rig.RefusePackets(r.Name(), x); err != nil {
		return err
	}
	if err := instanceConfig(x).Validate(); err != nil {
		return rig.Cannotf("xds: instances.ttl: %v", err)
	}
	for _, c := range x.Callers {
		if c.Kind == experiment.ExecClient {
			return rig.Cannotf("xds runs no user's program (the exec protocol names a registry's endpoints; here the callers read a control plane over ADS)")
		}
	}
	return nil
}

// instanceConfig is the instances' configuration: gRPC health servers on
// leases of the experiment's ttl (20 s by default), renewed every tenth.
func instanceConfig(x experiment.Experiment) fakeservice.Config {
	c := fakeservice.DefaultConfig()
	c.Service, c.GRPC = Service, true
	if x.Instances.TTL > 0 {
		c.TTL = x.Instances.TTL.D()
		c.Renew = c.TTL / 10
	}
	return c
}

// Service is the service the world's instances register and its clients
// resolve (xds:///api).
const Service = "api"

// World builds the xDS world that runs x.
func (r xdsRegistry) World(env *rig.Env, x experiment.Experiment) (rig.World, error) {
	if err := r.Can(x); err != nil {
		return nil, err
	}
	env.Duration = x.Duration.D()
	return newWorld(env, x), nil
}

// Rules are the xDS world's rules for x (rules_experiment.go).
func (xdsRegistry) Rules(x experiment.Experiment) experiment.Rules {
	return ExperimentRules{ControlPlane: DefaultControlPlaneSettings(Service), TTL: instanceConfig(x).TTL, CallTimeout: rig.CallTimeout,
		ElectionMs: cluster.DefaultConfig().ElectionMs}
}
