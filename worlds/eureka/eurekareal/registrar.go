package eurekareal

import (
	"context"
	"fmt"
	"net/http"
)

// Cancel deletes the registrar's instance on the first of its servers that
// answers (DELETE apps/APP/ID: 200, or 404 when the server does not hold it).
func (g *Registrar) Cancel(ctx context.Context) error {
	var last error
	for _, s := range g.servers {
		st, err := g.r.cancel(ctx, s, g.in.App, g.in.ID)
		if last = expect(s, st, err, http.StatusOK, http.StatusNotFound); last == nil {
			return nil
		}
	}
	return fmt.Errorf("%w: %v", errNoServer, last)
}
