package etcd

import (
	"context"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/cluster"
	"sdchaos/ports"
)

// TestKillEveryMemberHeals: every member killed, then healed: the restart of
// a member serves only with a quorum, so Heal restarts them together; one
// after another it waited for good on the first (registry-unreachable how:
// kill hung at its heal). The cluster serves a write after the heal.
func TestKillEveryMemberHeals(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real etcd cluster: skipped under -short")
	}
	sup, err := childproc.NewSupervisor(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	c, err := cluster.Start(context.Background(), sup, ports.New(25150, "--port-base"), cluster.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	k := KillNodes{Nodes: c.Nodes()}
	if err := k.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	if err := k.Heal(ctx); err != nil {
		t.Fatalf("heal: %v", err)
	}
	cli, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Put(ctx, "/after-heal", "x"); err != nil {
		t.Fatalf("a write after the heal: %v", err)
	}
}
