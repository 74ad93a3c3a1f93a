package xds

import (
	"fmt"
	"runtime/debug"
)

// The modules whose versions a report names.
const (
	ModuleControlPlane = "github.com/envoyproxy/go-control-plane"
	ModuleEnvoyAPI     = "github.com/envoyproxy/go-control-plane/envoy"
	ModuleGRPC         = "google.golang.org/grpc"
)

// Versions are the versions of the world's libraries as the running
// binary was built with them.
type Versions struct {
	ControlPlane, EnvoyAPI, GRPC string
}

// BuildVersions reads the versions from the binary's build information.
func BuildVersions() (Versions, error) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Versions{}, fmt.Errorf("versions: the binary carries no build information")
	}
	return versionsOf(bi.Deps)
}

func versionsOf(deps []*debug.Module) (Versions, error) {
	var v Versions
	for _, d := range deps {
		if d.Replace != nil {
			d = d.Replace
		}
		switch d.Path {
		case ModuleControlPlane:
			v.ControlPlane = d.Version
		case ModuleEnvoyAPI:
			v.EnvoyAPI = d.Version
		case ModuleGRPC:
			v.GRPC = d.Version
		}
	}
	if v.ControlPlane == "" || v.EnvoyAPI == "" || v.GRPC == "" {
		return v, fmt.Errorf("versions: missing from the build information: %+v", v)
	}
	return v, nil
}

// String names the three versions.
func (v Versions) String() string {
	return fmt.Sprintf("go-control-plane %s (envoy API %s), grpc-go %s", v.ControlPlane, v.EnvoyAPI, v.GRPC)
}
