package nacosreal

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// membersAnswer is the shape of GET /nacos/v3/admin/core/cluster/node/list from a 3.1 member
// (trimmed: abilities and the site/weight keys of extendInfo left out): nacos2 has reported
// (version, lastRefreshTime), nacos3 has not yet (only what cluster.conf gave: raftPort,
// readyToUpgrade).
const membersAnswer = `{"code":0,"message":"success","data":[
 {"ip":"127.0.0.1","port":10600,"state":"UP","extendInfo":{"lastRefreshTime":1764680545123,"raftPort":"9600",
  "readyToUpgrade":true,"version":"3.1.0"},"address":"127.0.0.1:10600","failAccessCnt":0,"grpcReportEnabled":true},
 {"ip":"127.0.0.1","port":10602,"state":"UP","extendInfo":{"lastRefreshTime":1764680546000,"raftPort":"9602",
  "readyToUpgrade":true,"version":"3.1.0"},"address":"127.0.0.1:10602","failAccessCnt":0},
 {"ip":"127.0.0.1","port":10604,"state":"SUSPICIOUS","extendInfo":{"raftPort":"9604","readyToUpgrade":true},
  "address":"127.0.0.1:10604","failAccessCnt":1}]}`

func TestParseMembers(t *testing.T) {
	got, err := ParseMembers([]byte(membersAnswer))
	if err != nil {
		t.Fatal(err)
	}
	want := []MemberInfo{
		{Address: "127.0.0.1:10600", IP: "127.0.0.1", Port: 10600, State: StateUp, LastRefresh: time.UnixMilli(1764680545123), RaftPort: 9600, Version: "3.1.0"},
		{Address: "127.0.0.1:10602", IP: "127.0.0.1", Port: 10602, State: StateUp, LastRefresh: time.UnixMilli(1764680546000), RaftPort: 9602, Version: "3.1.0"},
		{Address: "127.0.0.1:10604", IP: "127.0.0.1", Port: 10604, State: StateSuspicious, RaftPort: 9604},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d members, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !got[i].LastRefresh.Equal(want[i].LastRefresh) {
			t.Errorf("member %d LastRefresh %v, want %v", i, got[i].LastRefresh, want[i].LastRefresh)
		}
		got[i].LastRefresh, want[i].LastRefresh = time.Time{}, time.Time{}
		if got[i] != want[i] {
			t.Errorf("member %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, c := range []struct{ name, body, wantErr string }{
		{"error envelope", `{"code":403,"message":"forbidden","data":null}`, "code 403 forbidden"},
		{"not JSON", `<html>`, "decoding the members list"},
	} {
		if _, err := ParseMembers([]byte(c.body)); err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.wantErr)
		}
	}
}

func TestClusterStateReady(t *testing.T) {
	addrs := []string{"a:1", "b:3", "c:5"}
	up := func(a string) MemberInfo { return MemberInfo{Address: a, State: StateUp, Version: "3.1.0"} }
	full := func() []MemberInfo { return []MemberInfo{up("a:1"), up("b:3"), up("c:5")} }
	good := func() ClusterState {
		return ClusterState{Addresses: addrs, Views: map[string][]MemberInfo{"a:1": full(), "b:3": full(), "c:5": full()},
			Naming: map[string]string{"a:1": "UP", "b:3": "UP", "c:5": "UP"}, Errs: map[string]error{}}
	}
	cases := []struct {
		name    string
		edit    func(*ClusterState)
		warmup  bool
		wantErr string
	}{
		{name: "all up, reported, naming up", warmup: true},
		{name: "a member does not answer", edit: func(s *ClusterState) { s.Errs["b:3"] = errors.New("refused") },
			wantErr: "b:3 does not answer"},
		{name: "a view misses a member", edit: func(s *ClusterState) { s.Views["c:5"] = full()[:2] },
			wantErr: "c:5 does not list c:5"},
		{name: "a view lists a stranger", edit: func(s *ClusterState) { s.Views["a:1"] = append(full(), up("d:7")) },
			wantErr: "a:1 lists d:7, not a member"},
		{name: "suspicious in one view", edit: func(s *ClusterState) { s.Views["a:1"][2].State = StateSuspicious },
			wantErr: "a:1 sees c:5 SUSPICIOUS"},
		{name: "up but never reported", edit: func(s *ClusterState) { s.Views["b:3"][0].Version = "" },
			wantErr: "b:3 has exchanged no report with a:1"},
		{name: "naming down with warm-up", warmup: true, edit: func(s *ClusterState) { s.Naming["c:5"] = "DOWN" },
			wantErr: "naming on c:5 is DOWN"},
		{name: "naming down without warm-up is not read", edit: func(s *ClusterState) { s.Naming["c:5"] = "DOWN" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := good()
			if c.edit != nil {
				c.edit(&st)
			}
			err := st.Ready(c.warmup)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("Ready = %v, want nil", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("Ready = %v, want an error containing %q", err, c.wantErr)
			}
		})
	}
}
