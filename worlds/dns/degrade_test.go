package dns

import (
	"context"
	"errors"
	"testing"
	"time"

	"sdchaos/caller"
)

// listFunc is a caller.Source made of a function, for the pure logic of
// DegradeSource.
type listFunc func(context.Context) ([]caller.Endpoint, error)

func (f listFunc) List(ctx context.Context) ([]caller.Endpoint, error) { return f(ctx) }

func TestDegradeSource(t *testing.T) {
	reg := []caller.Endpoint{{ID: "j1", Addr: "127.0.0.1:9160"}}
	dns := []caller.Endpoint{{ID: "j2", Addr: "127.0.0.1:9162"}}
	ok := func(eps []caller.Endpoint) listFunc {
		return func(context.Context) ([]caller.Endpoint, error) { return eps, nil }
	}
	fail := listFunc(func(context.Context) ([]caller.Endpoint, error) { return nil, errors.New("down") })
	hang := listFunc(func(ctx context.Context) ([]caller.Endpoint, error) { <-ctx.Done(); return nil, ctx.Err() })
	cases := []struct {
		name              string
		primary, fallback caller.Source
		want              []caller.Endpoint
		wantErr           bool
	}{
		{"registry answers", ok(reg), fail, reg, false},
		{"registry lists none", ok(nil), ok(dns), nil, false},
		{"registry fails", fail, ok(dns), dns, false},
		{"registry hangs past its timeout", hang, ok(dns), dns, false},
		{"both fail", fail, fail, nil, true},
	}
	for _, c := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		got, err := DegradeSource{Primary: c.primary, Fallback: c.fallback, PrimaryTimeout: 20 * time.Millisecond}.List(ctx)
		cancel()
		if (err != nil) != c.wantErr || len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
			t.Errorf("%s: List = %v, %v; want %v (error %v)", c.name, got, err, c.want, c.wantErr)
		}
	}
}
