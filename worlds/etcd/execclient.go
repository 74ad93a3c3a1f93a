package etcd

import (
	"strings"

	"sdchaos/fakeservice"
	"sdchaos/rig"
)

// The etcd world's part of a user's client protocol (rig.ExecClient): beside
// rig.EnvRegistry (etcd) and rig.EnvEndpoints (the client URLs), where the
// instances are listed.
const (
	// EnvPrefix: the instances' key prefix; each value is an HTTP "host:port".
	EnvPrefix = "SDCHAOS_PREFIX"
	// EnvGRPCTarget: the etcd naming endpoints-manager target of the
	// instances' gRPC health servers (resolve "etcd:///"+target).
	EnvGRPCTarget = "SDCHAOS_GRPC_TARGET"
)

// NewExecClient returns the user's client for the rig, its environment
// naming the rig's endpoints and the instances' prefixes.
func (r *Etcd) NewExecClient(cfg rig.ExecConfig) *rig.ExecClient {
	cfg.World = []string{
		rig.EnvRegistry + "=" + string(Name),
		rig.EnvEndpoints + "=" + strings.Join(r.Endpoints(), ","),
		EnvPrefix + "=" + r.KeyPrefix(),
		EnvGRPCTarget + "=" + fakeservice.GRPCTarget(r.Svc.Service),
	}
	return rig.NewExecClient(r.env, cfg)
}
