package zookeeper

import (
	"context"

	"sdchaos/caller"
	"sdchaos/rig"
)

// The ZooKeeper world's part of a user's client protocol (rig.ExecClient):
// beside rig.EnvRegistry (zookeeper) and rig.EnvEndpoints (the connect
// string, "h:p,h:p,h:p/sdchaos-…": every member's client link and the run's
// chroot), where the instances are listed in Curator's layout: the children
// of {chroot}{EnvBasePath}/{EnvService}, each holding Curator's JSON
// ServiceInstance (address, port).
const (
	// EnvBasePath: Curator's discovery base path (/services).
	EnvBasePath = "SDCHAOS_BASE_PATH"
	// EnvService: the service the instances register ("svc").
	EnvService = "SDCHAOS_SERVICE"
)

// ExecWorld is the ZooKeeper world's part of the environment of a user's
// client reading service under basePath through connect (a connect string
// with its chroot).
func ExecWorld(connect, basePath, service string) []string {
	return []string{
		rig.EnvRegistry + "=" + string(Name),
		rig.EnvEndpoints + "=" + connect,
		EnvBasePath + "=" + basePath,
		EnvService + "=" + service,
	}
}

// zkTrafficWith is the plan traffic of the registry-neutral experiments
// (zkListedTraffic) with the users' clients of cfgs, their environment
// filled in on the started world.
func zkTrafficWith(env *rig.Env, cfgs []rig.ExecConfig) func(context.Context, *ZooKeeper) ([]caller.Traffic, error) {
	return func(ctx context.Context, z *ZooKeeper) ([]caller.Traffic, error) {
		ts, err := zkListedTraffic(ctx, z)
		if err != nil {
			return nil, err
		}
		for _, cfg := range cfgs {
			cfg.World = ExecWorld(z.Ensemble.ConnectString(), DefaultBasePath, z.Service)
			ts = append(ts, rig.NewExecClient(env, cfg))
		}
		return ts, nil
	}
}
