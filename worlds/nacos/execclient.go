package nacos

import (
	"fmt"

	"sdchaos/experiment"
	"sdchaos/rig"
)

// The Nacos world's part of a user's client protocol (rig.ExecClient): beside
// rig.EnvRegistry (nacos) and rig.EnvEndpoints (the server's HTTP address,
// host:port — the first member's on a cluster (the policy callers are given every member) —, through a link of the client's own that the faults cut as the
// other callers'; its gRPC port is that port + 1000, as every Nacos client
// assumes), where the instances are listed.
const (
	// EnvService: the service the instances register ("svc").
	EnvService = "SDCHAOS_SERVICE"
	// EnvGroup: the service's group (DEFAULT_GROUP).
	EnvGroup = "SDCHAOS_GROUP"
	// EnvNamespace: the service's namespace id (public).
	EnvNamespace = "SDCHAOS_NAMESPACE"
)

// nacosNamespace is the namespace the instances register in.
const nacosNamespace = "public"

// ExecWorld is the Nacos world's part of the environment of a user's
// client that reaches the server at addr (host:port).
func ExecWorld(addr, service string) []string {
	return []string{
		rig.EnvRegistry + "=" + string(Name),
		rig.EnvEndpoints + "=" + addr,
		EnvService + "=" + service,
		EnvGroup + "=" + Group,
		EnvNamespace + "=" + nacosNamespace,
	}
}

// nacosExecCaller is a user's client and the link it reaches the server through.
type nacosExecCaller struct {
	cfg  rig.ExecConfig
	link *Link
}

// startExec opens a link to the server for each user's client of the experiment.
func (w *nacosExpWorld) startExec() error {
	for _, c := range w.x.Callers {
		if c.Kind != experiment.ExecClient {
			continue
		}
		l, err := NewLinkFrom(w.links, w.Server(), c.Name, w.source)
		if err != nil {
			return fmt.Errorf("user's client %s: %w", c.Name, err)
		}
		cfg := rig.ExecConfig{Name: c.Name, Argv: c.Command, Rate: rig.RateOf(c), CallTimeout: rig.CallTimeout,
			World: ExecWorld(l.Addr(), nacosService)}
		w.exec = append(w.exec, nacosExecCaller{cfg: cfg, link: l})
	}
	return nil
}
