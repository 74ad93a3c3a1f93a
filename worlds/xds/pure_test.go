package xds

import (
	"encoding/json"
	"errors"
	"net/netip"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	"github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"go.etcd.io/etcd/client/v3/naming/endpoints"
)

func TestSettingsParse(t *testing.T) {
	for _, p := range []WatchFailPolicy{KeepLast, ClearEndpoints} {
		if got, err := ParseWatchFailPolicy(p.String()); err != nil || got != p {
			t.Errorf("ParseWatchFailPolicy(%q) = %v, %v", p, got, err)
		}
	}
	for _, s := range []StartSnapshot{FromRegistry, EmptySnapshot, PartialSnapshot, NoSnapshot} {
		if got, err := ParseStartSnapshot(s.String()); err != nil || got != s {
			t.Errorf("ParseStartSnapshot(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseStartSnapshot("half"); err == nil {
		t.Error("ParseStartSnapshot(half) succeeded")
	}
}

func TestSettingsValidate(t *testing.T) {
	good := DefaultControlPlaneSettings("api")
	tests := []struct {
		name   string
		change func(*ControlPlaneSettings)
		ok     bool
	}{
		{"default", func(*ControlPlaneSettings) {}, true},
		{"no service", func(s *ControlPlaneSettings) { s.Service = "" }, false},
		{"no poll", func(s *ControlPlaneSettings) { s.Poll = 0 }, false},
		{"negative hold", func(s *ControlPlaneSettings) { s.Hold = -time.Second }, false},
		{"unknown policy", func(s *ControlPlaneSettings) { s.OnWatchFail = 7 }, false},
		{"unknown start", func(s *ControlPlaneSettings) { s.Start = 7 }, false},
	}
	for _, tc := range tests {
		s := good
		tc.change(&s)
		if err := s.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestControlPlaneArgsRoundTrip(t *testing.T) {
	set := ControlPlaneSettings{Service: "api", OnWatchFail: ClearEndpoints, Start: PartialSnapshot,
		Hold: 3 * time.Second, Poll: 200 * time.Millisecond, ReadTimeout: time.Second}
	a := controlPlaneArgs{Port: 31400, Etcd: []string{"http://127.0.0.1:1", "http://127.0.0.1:2"}, Set: set}
	got, err := parseControlPlaneArgs(a.argv())
	if err != nil || !reflect.DeepEqual(got, a) {
		t.Errorf("round trip = %+v, %v; want %+v", got, err, a)
	}
	if _, err := parseControlPlaneArgs([]string{"--port", "1"}); err == nil {
		t.Error("args without --etcd accepted")
	}
}

func TestClientArgsRoundTrip(t *testing.T) {
	a := clientArgs{Service: "api", Rate: 20, CallTimeout: time.Second}
	if got, err := parseClientArgs(a.argv()); err != nil || got != a {
		t.Errorf("round trip = %+v, %v", got, err)
	}
	if _, err := parseClientArgs([]string{"--service", "api"}); err == nil {
		t.Error("args without a rate accepted")
	}
}

func TestBootstrapJSON(t *testing.T) {
	tests := []struct {
		ignore   bool
		features []string
	}{
		{false, []string{"xds_v3"}},
		{true, []string{"xds_v3", "ignore_resource_deletion"}},
	}
	for _, tc := range tests {
		b, err := Bootstrap{Server: "127.0.0.1:31400", NodeID: "c1", IgnoreResourceDeletion: tc.ignore}.JSON()
		if err != nil {
			t.Fatal(err)
		}
		var f bootstrapFile
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		if len(f.Servers) != 1 || f.Servers[0].URI != "127.0.0.1:31400" || !reflect.DeepEqual(f.Servers[0].Features, tc.features) {
			t.Errorf("ignore %v: bootstrap %s", tc.ignore, b)
		}
	}
	b, err := Bootstrap{Server: "127.0.0.1:1", NodeID: "c1", Fallback: []string{"127.0.0.1:2"}}.JSON()
	var f bootstrapFile
	if err != nil || json.Unmarshal(b, &f) != nil || len(f.Servers) != 2 || f.Servers[1].URI != "127.0.0.1:2" {
		t.Errorf("bootstrap with a fallback: %s (%v)", b, err)
	}
	if _, err := (Bootstrap{NodeID: "c1"}).JSON(); err == nil {
		t.Error("a bootstrap without a server was written")
	}
}

func eps(s ...string) []netip.AddrPort {
	var out []netip.AddrPort
	for _, a := range s {
		out = append(out, netip.MustParseAddrPort(a))
	}
	return out
}

func TestBuildSnapshot(t *testing.T) {
	tests := []struct {
		content   Content
		listeners int
		endpoints int
	}{
		{Full, 1, 2},
		{NoEndpoints, 1, 0},
		{Nothing, 0, 0},
	}
	for _, tc := range tests {
		snap, err := BuildSnapshot("v1", "api", eps("127.0.0.1:2", "127.0.0.1:1"), tc.content)
		if err != nil {
			t.Fatalf("%s: %v", tc.content, err)
		}
		if n := len(snap.GetResources(resource.ListenerType)); n != tc.listeners {
			t.Errorf("%s: %d listeners, want %d", tc.content, n, tc.listeners)
		}
		if n := endpointCount(snap); n != tc.endpoints {
			t.Errorf("%s: %d endpoints, want %d", tc.content, n, tc.endpoints)
		}
		if tc.content != Nothing {
			checkReferences(t, snap)
		}
	}
}

// checkReferences follows listener → route → cluster → assignment by name.
func checkReferences(t *testing.T, snap *cachev3.Snapshot) {
	t.Helper()
	n := NamesOf("api")
	lis := snap.GetResources(resource.ListenerType)[n.Listener].(*listenerv3.Listener)
	var hcm hcmv3.HttpConnectionManager
	if err := lis.GetApiListener().GetApiListener().UnmarshalTo(&hcm); err != nil {
		t.Fatal(err)
	}
	route, ok := snap.GetResources(resource.RouteType)[hcm.GetRds().GetRouteConfigName()].(*routev3.RouteConfiguration)
	if !ok {
		t.Fatalf("the listener names route %q, not in the snapshot", hcm.GetRds().GetRouteConfigName())
	}
	cluster := route.GetVirtualHosts()[0].GetRoutes()[0].GetRoute().GetCluster()
	if _, ok := snap.GetResources(resource.ClusterType)[cluster]; !ok {
		t.Errorf("the route names cluster %q, not in the snapshot", cluster)
	}
	if _, ok := snap.GetResources(resource.EndpointType)[cluster]; !ok {
		t.Errorf("no load assignment for cluster %q", cluster)
	}
}

func endpointCount(snap *cachev3.Snapshot) int {
	n := 0
	for _, r := range snap.GetResources(resource.EndpointType) {
		for _, l := range r.(*endpointv3.ClusterLoadAssignment).GetEndpoints() {
			n += len(l.GetLbEndpoints())
		}
	}
	return n
}

func TestApplyUpdates(t *testing.T) {
	state := map[string]string{}
	apply([]*endpoints.Update{
		{Op: endpoints.Add, Key: "grpc/api/a", Endpoint: endpoints.Endpoint{Addr: "127.0.0.1:9002"}},
		{Op: endpoints.Add, Key: "grpc/api/b", Endpoint: endpoints.Endpoint{Addr: "127.0.0.1:9001"}},
		{Op: endpoints.Add, Key: "grpc/api/c", Endpoint: endpoints.Endpoint{Addr: "not an address"}},
	}, state)
	apply([]*endpoints.Update{{Op: endpoints.Delete, Key: "grpc/api/a"}}, state)
	if got := addrs(state); !reflect.DeepEqual(got, eps("127.0.0.1:9001")) {
		t.Errorf("addrs = %v", got)
	}
}

// TestSnapshotter drives go-control-plane's own snapshot cache.
func TestSnapshotter(t *testing.T) {
	tests := []struct {
		name    string
		policy  WatchFailPolicy
		start   StartSnapshot
		views   []registryView
		follow  bool
		content Content
		n       int
		set     bool
	}{
		{"follows the registry", KeepLast, FromRegistry, []registryView{{Endpoints: eps("127.0.0.1:1", "127.0.0.1:2")}}, false, Full, 2, true},
		{"keep on failure", KeepLast, FromRegistry, []registryView{{Endpoints: eps("127.0.0.1:1")}, {Err: errors.New("down")}}, false, Full, 1, true},
		{"clear on failure", ClearEndpoints, FromRegistry, []registryView{{Endpoints: eps("127.0.0.1:1")}, {Err: errors.New("down")}}, false, NoEndpoints, 0, true},
		{"empty start holds", KeepLast, EmptySnapshot, []registryView{{Endpoints: eps("127.0.0.1:1")}}, false, Nothing, 0, true},
		{"partial start holds", KeepLast, PartialSnapshot, []registryView{{Endpoints: eps("127.0.0.1:1")}}, false, NoEndpoints, 0, true},
		{"no snapshot holds", KeepLast, NoSnapshot, []registryView{{Endpoints: eps("127.0.0.1:1")}}, false, Full, 0, false},
		{"empty start then follow", KeepLast, EmptySnapshot, []registryView{{Endpoints: eps("127.0.0.1:1")}}, true, Full, 1, true},
	}
	for _, tc := range tests {
		set := DefaultControlPlaneSettings("api")
		set.OnWatchFail, set.Start = tc.policy, tc.start
		cache := cachev3.NewSnapshotCache(true, allNodes{}, nil)
		s := newSnapshotter(cache, set, "boot")
		if err := s.begin(); err != nil {
			t.Fatal(err)
		}
		for _, v := range tc.views {
			if err := s.view(v); err != nil {
				t.Fatal(err)
			}
		}
		if tc.follow {
			if err := s.follow(); err != nil {
				t.Fatal(err)
			}
		}
		snap, err := cache.GetSnapshot(snapshotKey)
		if (err == nil) != tc.set {
			t.Errorf("%s: snapshot set %v (%v), want %v", tc.name, err == nil, err, tc.set)
			continue
		}
		st := s.status()
		if tc.set && (st.Content != tc.content || endpointCount(snap.(*cachev3.Snapshot)) != tc.n || !strings.HasPrefix(st.Version, "boot-")) {
			t.Errorf("%s: status %+v with %d endpoints, want %s with %d", tc.name, st, endpointCount(snap.(*cachev3.Snapshot)), tc.content, tc.n)
		}
	}
}

func TestTally(t *testing.T) {
	tl := TallyOf([]CallLine{{Outcome: OutcomeOK, Target: "b"}, {Outcome: OutcomeOK, Target: "a"}, {Outcome: OutcomeFail}})
	if tl.OK != 2 || tl.Fail != 1 || !reflect.DeepEqual(tl.TargetList(), []string{"a", "b"}) {
		t.Errorf("tally %+v", tl)
	}
}

func TestVersionsOf(t *testing.T) {
	deps := []*debug.Module{{Path: ModuleControlPlane, Version: "v0.14.0"}, {Path: ModuleEnvoyAPI, Version: "v1.40.0"},
		{Path: ModuleGRPC, Version: "v1.0.0", Replace: &debug.Module{Path: ModuleGRPC, Version: "v1.84.0"}}}
	v, err := versionsOf(deps)
	if err != nil || v != (Versions{ControlPlane: "v0.14.0", EnvoyAPI: "v1.40.0", GRPC: "v1.84.0"}) {
		t.Errorf("versionsOf = %+v, %v", v, err)
	}
	if _, err := versionsOf(deps[:1]); err == nil {
		t.Error("missing modules not reported")
	}
	// A test binary's build information lists no dependencies; the
	// harness's command does (go version -m shows them).
	got, err := BuildVersions()
	t.Logf("this test binary: %s (%v)", got, err)
}
