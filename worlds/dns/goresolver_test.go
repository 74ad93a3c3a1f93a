package dns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"sdchaos/history"
)

func TestLookupOutcome(t *testing.T) {
	cases := []struct {
		name    string
		err     error
		outcome history.Outcome
		class   history.ErrClass
	}{
		{"ok", nil, history.OK, ""},
		{"nxdomain", fmt.Errorf("resolving: %w", &net.DNSError{Err: "no such host", IsNotFound: true}), history.Fail, history.ErrNoInstance},
		{"servfail", fmt.Errorf("resolving: %w", &net.DNSError{Err: "server misbehaving", IsTemporary: true}), history.Fail, history.ErrRegistry},
		{"dns timeout", &net.DNSError{Err: "i/o timeout", IsTimeout: true}, history.Unknown, history.ErrRegistry},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), history.Unknown, history.ErrRegistry},
		{"other", errors.New("refused"), history.Fail, history.ErrRegistry},
	}
	for _, c := range cases {
		o, k := lookupOutcome(c.err)
		if o != c.outcome || k != c.class {
			t.Errorf("%s: lookupOutcome = %s %q, want %s %q", c.name, o, k, c.outcome, c.class)
		}
	}
}

func TestGRPCTarget(t *testing.T) {
	c := GRPCConfig{Server: "127.0.0.1:9200", Host: "api.skydns.local", Port: 9161}
	if got, want := c.Target(), "dns://127.0.0.1:9200/api.skydns.local:9161"; got != want {
		t.Errorf("Target() = %q, want %q", got, want)
	}
}
