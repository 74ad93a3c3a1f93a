package fakeservice

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/childproc"
	"sdchaos/cluster"
	"sdchaos/ports"
)

func TestMain(m *testing.M) {
	childproc.Dispatch()
	os.Exit(m.Run())
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		mutate func(*Config)
		want   string
	}{
		{func(*Config) {}, ""},
		{func(c *Config) { c.TTL = time.Second }, "ttl (1s) must be at least 2s"},
		{func(c *Config) { c.TTL = 2500 * time.Millisecond }, "whole number of seconds"},
		{func(c *Config) { c.Renew = 0 }, "renew interval (0s) must be positive"},
		{func(c *Config) { c.Renew = 30 * time.Second }, "renew interval (30s) must be shorter than the ttl (20s)"},
		{func(c *Config) { c.Service = "" }, "service name is empty"},
	}
	for _, tc := range tests {
		c := DefaultConfig()
		tc.mutate(&c)
		err := c.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Validate() = %v, want %q", err, tc.want)
		}
	}
}

// TestRegisterRenewReregisterCrash runs against a real one-member etcd.
func TestRegisterRenewReregisterCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd")
	}
	sup, err := childproc.NewSupervisor(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	alloc := ports.New(9800, "--port-base")
	cc := cluster.DefaultConfig()
	cc.Size = 1
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cluster.Start(ctx, sup, alloc, cc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.TTL, cfg.Renew = 5*time.Second, 200*time.Millisecond
	g, err := StartGroup(ctx, cfg, 2, alloc, c.Endpoints())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	cli, _ := c.Client()
	defer cli.Close()
	in := g.Instances[0]
	resp, err := cli.Get(ctx, Key("api", "j1"))
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != in.Addr || clientv3.LeaseID(resp.Kvs[0].Lease) != in.Lease() {
		t.Fatalf("registration: %v %v", resp, err)
	}
	// The lease disappears (as after expiry): the next renewal registers again.
	old := in.Lease()
	if _, err := cli.Revoke(ctx, old); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "re-registration", func() bool { return in.Lease() != old && in.Stats().Registrations == 2 })
	resp, _ = cli.Get(ctx, in.Key())
	if len(resp.Kvs) != 1 || clientv3.LeaseID(resp.Kvs[0].Lease) != in.Lease() {
		t.Fatalf("key not back on the new lease: %v", resp.Kvs)
	}
	if r, err := http.Get("http://" + in.Addr + "/"); err != nil || r.StatusCode != 200 {
		t.Fatalf("instance not serving: %v", err)
	} else {
		r.Body.Close()
	}
	in.Crash()
	if _, err := http.Get("http://" + in.Addr + "/"); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("crashed instance: err = %v, want connection refused", err)
	}
	renewals := in.Stats().RenewOK
	time.Sleep(600 * time.Millisecond)
	if in.Stats().RenewOK != renewals {
		t.Error("a crashed instance kept renewing")
	}
	if g.Instances[1].Stats().RenewOK < 2 {
		t.Error("the other instance does not renew")
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
