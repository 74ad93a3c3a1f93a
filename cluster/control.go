package cluster

import (
	"fmt"
	"strings"

	"go.etcd.io/etcd/server/v3/embed"
)

// control answers the harness's commands inside a node process.
// Commands: "id" → this member's id in hex.
type control struct{ e *embed.Etcd }

func newControl(e *embed.Etcd) *control { return &control{e: e} }

func (c *control) handle(line string) (string, error) {
	verb, _, _ := strings.Cut(line, " ")
	switch verb {
	case "id":
		return c.e.Server.MemberID().String(), nil
	}
	return "", fmt.Errorf("unknown command %q", verb)
}
