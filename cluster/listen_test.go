package cluster

import (
	"net"

	"sdchaos/ports"
)

func listen(port int) (net.Listener, error) { return net.Listen("tcp", ports.Addr(port)) }
