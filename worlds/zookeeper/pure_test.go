package zookeeper

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRenderZooCfg(t *testing.T) {
	all := []ServerPorts{{1, 9150, 9151, 9152}, {2, 9153, 9154, 9155}, {3, 9156, 9157, 9158}}
	cfg := DefaultConfig()
	tests := []struct {
		name      string
		edit      func(*Config)
		self      int
		want, not []string
	}{
		{"defaults", func(*Config) {}, 0,
			[]string{"tickTime=2000\n", "initLimit=10\n", "syncLimit=5\n", "dataDir=/d\n", "clientPort=9150\n",
				"clientPortAddress=127.0.0.1\n", "admin.enableServer=false\n", "4lw.commands.whitelist=srvr,stat,mntr,ruok,conf\n",
				"server.1=127.0.0.1:9151:9152\n", "server.2=127.0.0.1:9154:9155\n", "server.3=127.0.0.1:9157:9158\n"},
			[]string{"minSessionTimeout", "maxSessionTimeout"}},
		{"session bounds and timing", func(c *Config) {
			c.TickTime, c.InitLimit, c.SyncLimit = 500*time.Millisecond, 4, 2
			c.MinSessionTimeout, c.MaxSessionTimeout = time.Second, 30*time.Second
		}, 2, []string{"tickTime=500\n", "initLimit=4\n", "syncLimit=2\n", "minSessionTimeout=1000\n", "maxSessionTimeout=30000\n", "clientPort=9156\n"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg
			tt.edit(&c)
			got := RenderZooCfg(c, "/d", all[tt.self], all)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("zoo.cfg lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("zoo.cfg has %q:\n%s", n, got)
				}
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string // "" = valid
	}{
		{"default", func(*Config) {}, ""},
		{"no syncLimit", func(c *Config) { c.SyncLimit = 0 }, "SyncLimit (0)"},
		{"size 10", func(c *Config) { c.Size = 10 }, "Size (10)"},
		{"sub-ms tick", func(c *Config) { c.TickTime = 1500 * time.Microsecond }, "TickTime (1.5ms)"},
		{"min > max", func(c *Config) { c.MinSessionTimeout, c.MaxSessionTimeout = 9*time.Second, 8*time.Second }, "MinSessionTimeout (9s) is larger"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.edit(&c)
			err := c.Validate()
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}

const leaderSrvr = `Zookeeper version: 3.9.5-293c895a8d966a3ecb92872be4a1daf87d725da2, built on 2026-02-11 20:18 UTC
Latency min/avg/max: 0/29.6667/53
Received: 12
Sent: 11
Connections: 3
Outstanding: 2
Zxid: 0x200000002
Mode: leader
Node count: 9
Proposal sizes last/min/max: 48/48/92
`

func TestParseSrvr(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    Srvr
		wantErr bool
	}{
		{"leader", leaderSrvr, Srvr{Serving: true, Version: "3.9.5-293c895a8d966a3ecb92872be4a1daf87d725da2, built on 2026-02-11 20:18 UTC",
			Mode: ModeLeader, Zxid: 0x200000002, Outstanding: 2, Connections: 3, Nodes: 9, LatencyAvg: 29.6667, LatencyMax: 53}, false},
		{"looking", notServing + "\n", Srvr{}, false},
		{"no mode", "Zxid: 0x1\n", Srvr{}, true},
		{"bad mode", "Mode: boss\n", Srvr{}, true},
		{"bad zxid", "Mode: follower\nZxid: 0xzz\n", Srvr{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSrvr(tt.text)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseSrvr = %+v, %v; want %+v (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
	if s, _ := ParseSrvr(leaderSrvr); (State{Srvr: s}).Epoch() != 2 {
		t.Errorf("epoch of zxid 0x200000002 = %d, want 2", (State{Srvr: s}).Epoch())
	}
}

func TestParseMntrAndState(t *testing.T) {
	kv, err := ParseMntr("zk_server_state\tleader\nzk_global_sessions\t4\nzk_ephemerals_count\t3\nzk_synced_followers\t2\n")
	if err != nil {
		t.Fatal(err)
	}
	st := State{Member: "zk1", SyncedFollowers: -1}
	if err := st.setMntr(kv); err != nil || st.Sessions != 4 || st.Ephemerals != 3 || st.SyncedFollowers != 2 {
		t.Errorf("setMntr: %+v, %v", st, err)
	}
	if _, err := ParseMntr("zk_version 3.9.5\n"); err == nil {
		t.Error("a mntr line without a tab was accepted")
	}
	if kv, err := ParseMntr(notServing); err != nil || len(kv) != 0 {
		t.Errorf("not serving: %v, %v", kv, err)
	}
	if err := (&State{}).setMntr(map[string]string{"zk_global_sessions": "x"}); err == nil {
		t.Error("a non-numeric session count was accepted")
	}
}

func TestQuorum(t *testing.T) {
	l, f, n, u := State{Mode: ModeLeader, SyncedFollowers: 2}, State{Mode: ModeFollower}, State{Mode: ModeNotServing}, State{Mode: ModeUnreachable}
	lagging := State{Mode: ModeLeader, SyncedFollowers: 1}
	tests := []struct {
		name   string
		states []State
		want   bool
	}{
		{"formed", []State{f, l, f}, true},
		{"one looking", []State{f, l, n}, false},
		{"one unreachable", []State{u, l, f}, false},
		{"leader counts one synced", []State{f, lagging, f}, false},
		{"two leaders", []State{l, l, f}, false},
		{"survivors of a kill", []State{State{Mode: ModeLeader, SyncedFollowers: 1}, f}, true},
		{"alone", []State{{Mode: ModeLeader, SyncedFollowers: 0}}, true},
	}
	for _, tt := range tests {
		if got := Quorum(tt.states); got != tt.want {
			t.Errorf("%s: Quorum = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNegotiateSessionTimeout(t *testing.T) {
	tick := 2 * time.Second
	tests := []struct {
		req, lo, hi, want time.Duration
	}{
		{20 * time.Second, 0, 0, 20 * time.Second}, // within 4–40 s
		{time.Second, 0, 0, 4 * time.Second},       // raised to 2 ticks
		{60 * time.Second, 0, 0, 40 * time.Second}, // Curator's default, cut to 20 ticks
		{60 * time.Second, 0, 90 * time.Second, 60 * time.Second},
		{3 * time.Second, 5 * time.Second, 0, 5 * time.Second},
	}
	for _, tt := range tests {
		if got := NegotiateSessionTimeout(tt.req, tick, tt.lo, tt.hi); got != tt.want {
			t.Errorf("NegotiateSessionTimeout(%s, tick %s, %s, %s) = %s, want %s", tt.req, tick, tt.lo, tt.hi, got, tt.want)
		}
	}
}

func TestServiceInstanceJSON(t *testing.T) {
	at := time.UnixMilli(1764676800123)
	b, err := NewServiceInstance("api", "api-1", "127.0.0.1", 9160, at).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// The field names and order Curator's compatible serializer writes
	// (OldServiceInstance), the payload tagged with its Java class.
	want := `{"name":"api","id":"api-1","address":"127.0.0.1","port":9160,"sslPort":null,` +
		`"payload":{"@class":"org.springframework.cloud.zookeeper.discovery.ZookeeperInstance","id":"api-1","name":"api","metadata":{"instance_status":"UP"}},` +
		`"registrationTimeUTC":1764676800123,"serviceType":"DYNAMIC","uriSpec":{"parts":[{"value":"scheme","variable":true},` +
		`{"value":"://","variable":false},{"value":"address","variable":true},{"value":":","variable":false},{"value":"port","variable":true}]}}`
	if string(b) != want {
		t.Errorf("payload\n got %s\nwant %s", b, want)
	}
	tests := []struct {
		name, in, target string
		wantErr          bool
	}{
		{"ours", want, "127.0.0.1:9160", false},
		{"curator, unknown fields ignored", `{"name":"api","id":"x","address":"10.0.0.1","port":80,"enabled":true,"payload":null}`, "10.0.0.1:80", false},
		{"no port", `{"name":"api","id":"x","address":"h"}`, "", false},
		{"no id", `{"name":"api","address":"h","port":1}`, "", true},
		{"not json", `{"name":`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			si, err := ParseServiceInstance([]byte(tt.in))
			if (err != nil) != tt.wantErr || (err == nil && si.Target() != tt.target) {
				t.Errorf("ParseServiceInstance = %+v, %v; want target %q (error %v)", si, err, tt.target, tt.wantErr)
			}
		})
	}
	var generic map[string]any
	if err := json.Unmarshal(b, &generic); err != nil || generic["enabled"] != nil {
		t.Errorf("the compatible form has no enabled field: %v %v", generic, err)
	}
}

func TestParseConnectString(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		allowRemote bool
		servers     []string
		chroot      string
		err         error
	}{
		{"loopback", "127.0.0.1:2181,localhost:2182", false, []string{"127.0.0.1:2181", "localhost:2182"}, "", nil},
		{"chroot", "127.0.0.1:2181/app/x/", false, []string{"127.0.0.1:2181"}, "/app/x", nil},
		{"ipv6 loopback", "[::1]:2181", false, []string{"[::1]:2181"}, "", nil},
		{"remote refused", "10.1.2.3:2181", false, nil, "", ErrRemote},
		{"remote allowed", "10.1.2.3:2181", true, []string{"10.1.2.3:2181"}, "", nil},
		{"a name is remote", "zk.example:2181", false, nil, "", ErrRemote},
		{"no port", "127.0.0.1", false, nil, "", errors.New("want host:port")},
		{"bad port", "127.0.0.1:0", false, nil, "", errors.New("bad port")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers, chroot, err := ParseConnectString(tt.in, tt.allowRemote)
			switch {
			case tt.err == nil && err != nil:
				t.Fatalf("error %v", err)
			case tt.err != nil && (err == nil || (!errors.Is(err, tt.err) && !strings.Contains(err.Error(), tt.err.Error()))):
				t.Fatalf("error %v, want %v", err, tt.err)
			case tt.err == nil && (strings.Join(servers, ",") != strings.Join(tt.servers, ",") || chroot != tt.chroot):
				t.Errorf("got %v %q, want %v %q", servers, chroot, tt.servers, tt.chroot)
			}
		})
	}
}

func TestDecodeLine(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		call    bool
		kind    EventKind
		state   ConnState
		wantErr bool
	}{
		{"call", `{"scheduled":"2026-01-01T00:00:00Z","start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:00.01Z","target":"127.0.0.1:1","outcome":"ok","err":""}`, true, "", "", false},
		{"suspended", `{"event":"connection","time":"2026-01-01T00:00:00Z","state":"SUSPENDED"}`, false, EventConnection, Suspended, false},
		{"lost", `{"event":"connection","time":"2026-01-01T00:00:00Z","state":"LOST"}`, false, EventConnection, Lost, false},
		{"unknown state", `{"event":"connection","time":"2026-01-01T00:00:00Z","state":"GONE"}`, false, "", "", true},
		{"instances", `{"event":"instances","time":"2026-01-01T00:00:00Z","count":3}`, false, EventInstances, "", false},
		{"console log", `2026-01-01 INFO starting`, false, "", "", true},
		{"other json", `{"outcome":"maybe"}`, false, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, e, err := DecodeLine([]byte(tt.line))
			switch {
			case (err != nil) != tt.wantErr:
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			case err != nil:
			case tt.call != (c != nil):
				t.Errorf("call %v, want %v", c, tt.call)
			case !tt.call && (e.Kind != tt.kind || e.State != tt.state):
				t.Errorf("event %+v, want %s %s", e, tt.kind, tt.state)
			}
		})
	}
}

func TestRuleBounds(t *testing.T) {
	tick := SampleTickTime
	if got := ElectionBound(tick, SampleInitLimit); got != 20*time.Second+400*time.Millisecond {
		t.Errorf("ElectionBound = %s", got)
	}
	if got := FollowerCutOff(tick, SampleSyncLimit); got != 10*time.Second {
		t.Errorf("FollowerCutOff = %s", got)
	}
	if got := LeaderCutOff(tick, SampleSyncLimit); got != 12*time.Second {
		t.Errorf("LeaderCutOff = %s", got)
	}
	lo, hi := DefaultConfig().SessionRange()
	if lo != 4*time.Second || hi != 40*time.Second || ArticleSessionTimeout < lo || ArticleSessionTimeout > hi {
		t.Errorf("session range %s–%s with the article's %s", lo, hi, ArticleSessionTimeout)
	}
}
