package cluster

import (
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"go.etcd.io/etcd/client/pkg/v3/types"
	"go.etcd.io/etcd/server/v3/embed"
)

// control answers the harness's commands inside a node process:
//
//	id          → this member's id (hex)
//	cut <id>    → stop exchanging raft messages with member <id>
//	mend <id>   → exchange them again
//	metrics …   → sample this member's metrics (see sampler.handle)
type control struct {
	e *embed.Etcd
	s *sampler
}

func newControl(e *embed.Etcd) *control {
	return &control{e: e, s: &sampler{g: prometheus.DefaultGatherer}}
}

func (c *control) handle(line string) (string, error) {
	verb, arg, _ := strings.Cut(line, " ")
	switch verb {
	case "id":
		return c.e.Server.MemberID().String(), nil
	case "metrics":
		return c.s.handle(arg)
	case "cut", "mend":
		id, err := types.IDFromString(arg)
		if err != nil {
			return "", fmt.Errorf("bad member id %q: %w", arg, err)
		}
		if verb == "cut" {
			c.e.Server.CutPeer(id)
		} else {
			c.e.Server.MendPeer(id)
		}
		return verb + " " + id.String(), nil
	}
	return "", fmt.Errorf("unknown command %q", verb)
}
