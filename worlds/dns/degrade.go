package dns

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sdchaos/caller"
)

// DegradeSource is a caller's refresh that degrades to DNS: it lists from
// the registry (Primary) and, when that read fails, from DNS (Fallback,
// e.g. a GoResolver of TypeSRV), as the etcd article's "degrade to DNS"
// policy. An empty list from the registry is an answer, not a failure.
type DegradeSource struct {
	Primary, Fallback caller.Source
	// PrimaryTimeout bounds the registry read, so the fallback still has
	// the rest of the refresh's deadline.
	PrimaryTimeout time.Duration
}

// List reads Primary within PrimaryTimeout and, if that fails, Fallback.
func (d DegradeSource) List(ctx context.Context) ([]caller.Endpoint, error) {
	c, cancel := context.WithTimeout(ctx, d.PrimaryTimeout)
	eps, err := d.Primary.List(c)
	cancel()
	if err == nil {
		return eps, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("registry read failed (%w) and no time is left for DNS", err)
	}
	eps, ferr := d.Fallback.List(ctx)
	if ferr != nil {
		return nil, fmt.Errorf("registry read and DNS both failed: %w", errors.Join(err, ferr))
	}
	return eps, nil
}
