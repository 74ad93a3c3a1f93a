package cluster

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestIsolateLeader: a write on the majority is not readable on the isolated
// member until the partition heals; the majority elects a new leader.
func TestIsolateLeader(t *testing.T) {
	c, _ := startCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	iso, err := c.WaitLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var majority []*Node
	var eps []string
	for _, n := range c.Nodes() {
		if n != iso {
			majority = append(majority, n)
			eps = append(eps, n.ClientURL())
		}
	}
	if err := c.Isolate(iso, false); err != nil {
		t.Fatal(err)
	}
	newLeader, err := c.WaitLeader(ctx, majority...)
	if err != nil || newLeader == iso {
		t.Fatalf("majority leader: %v %v", newLeader, err)
	}
	maj, _ := NewClient(eps...)
	defer maj.Close()
	isoCli, _ := iso.Client()
	defer isoCli.Close()
	if _, err := maj.Put(ctx, "/after-partition", "x"); err != nil {
		t.Fatalf("put on the majority: %v", err)
	}
	resp, err := isoCli.Get(ctx, "/after-partition", clientv3.WithSerializable())
	if err != nil || len(resp.Kvs) != 0 {
		t.Fatalf("isolated member: serializable read = %v, %v; want a stale answer without the key", resp, err)
	}
	lctx, lcancel := context.WithTimeout(ctx, time.Second)
	_, err = isoCli.Get(lctx, "/after-partition")
	lcancel()
	if err == nil {
		t.Fatal("linearizable read succeeded on the isolated member")
	}
	if err := c.Rejoin(iso, false); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := isoCli.Get(ctx, "/after-partition", clientv3.WithSerializable())
		if err == nil && len(resp.Kvs) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("isolated member did not catch up within 10s after healing")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
