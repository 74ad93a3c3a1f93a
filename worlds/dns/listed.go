package dns

import (
	"context"
	"fmt"
)

// Listed counts the instances server lists for name (fully qualified):
// its SRV records, one per instance. An NXDOMAIN lists none; any other
// failure (SERVFAIL, no answer within ctx) is an error, a failed sample.
// It is what the world's OpListed sampler reads, on the DNS servers
// themselves.
func Listed(ctx context.Context, server, name string) (int, error) {
	a, err := Query(ctx, server, name, TypeSRV)
	if err != nil {
		return 0, err
	}
	return listedIn(a, name)
}

// listedIn reads the count out of an answer.
func listedIn(a Answer, name string) (int, error) {
	switch a.Rcode {
	case NoError:
		return len(a.Ports), nil
	case NXDomain:
		return 0, nil
	}
	return 0, fmt.Errorf("listing %s: the server answered %s", name, a.Rcode)
}
