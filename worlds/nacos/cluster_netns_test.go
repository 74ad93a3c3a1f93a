package nacos

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"sdchaos/netns"
	"sdchaos/netns/netnstest"
)

// TestClusterClientTrafficCutInPrivateNetwork runs the cluster in a private network namespace,
// each member on its own address (198.18.0.1–3), and drops every packet of member 2's client
// traffic (ClientTraffic: its HTTP and SDK gRPC ports) for 10 s: member 2 stops answering its
// clients while members 1 and 3 keep seeing it UP (member reports go every 2 s over the cluster
// gRPC port, which the rules leave alone); after the heal the cluster is ready again.
func TestClusterClientTrafficCutInPrivateNetwork(t *testing.T) {
	if !netnstest.Enter(t) {
		return
	}
	needJVM(t)
	sup := newSup(t)
	c := startCluster(t, sup, clusterPortBase+60, func(s *ClusterSpec) { s.Hosts = netns.MemberHosts(3) })
	for _, m := range c.Members() {
		listening := listenersOf(t, m.Pid())
		for _, p := range m.Ports().All() {
			if !strings.Contains(listening, fmt.Sprintf("%s:%d ", m.Host(), p)) {
				t.Errorf("%s: port %d not listening on %s; the JVM listens on:\n%s", m.Name(), p, m.Host(), listening)
			}
		}
	}
	f, err := netns.OpenFilter()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cut := c.Member(1)
	matches, err := cut.ClientTraffic()
	if err != nil {
		t.Fatal(err)
	}
	var rules []netns.Rule
	for _, m := range matches {
		rules = append(rules, netns.Rule{Match: m, Loss: 1, Action: netns.Drop})
	}
	applied, err := f.Apply("drop "+cut.Name()+"'s client traffic", rules)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := cut.Server().Ready(ctx); err == nil {
		t.Errorf("%s answered its readiness endpoint through the drop", cut.Name())
	}
	time.Sleep(10 * time.Second)
	for _, m := range []*Member{c.Member(0), c.Member(2)} {
		view, err := m.View(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := viewReady(m.Address(), c.addresses(), view); err != nil {
			t.Errorf("10 s into the drop of %s's client traffic: %v", cut.Name(), err)
		}
	}
	counts, err := applied.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if err := applied.Remove(); err != nil {
		t.Fatal(err)
	}
	t.Logf("the rules selected %d packets and dropped %d", counts.Selected, counts.Acted)
	if counts.Acted == 0 {
		t.Errorf("the rules dropped no packet")
	}
	if err := c.AwaitReady(ctx, time.Minute); err != nil {
		t.Errorf("after the heal: %v", err)
	}
}
