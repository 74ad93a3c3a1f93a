package nacos

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// membersAnswer is GET /nacos/v3/admin/core/cluster/node/list as a 3.1.0-bugfix member
// answered in a run here (abilities and all but one raftMetaData group left out), with a third
// entry as a member looks before its first report (cluster.conf's raftPort and readyToUpgrade
// only, MemberUtil.singleParse) and after one failed report (MemberUtil.onFail).
const membersAnswer = `{"code":0,"message":"success","data":[
 {"ip":"127.0.0.1","port":10654,"state":"UP","extendInfo":{"supportGrayModel":true,"lastRefreshTime":1796218579011,
  "version":"3.1.0-bugfix","raftPort":"9654","readyToUpgrade":true,"raftMetaData":{"metaDataMap":{"naming_service_metadata":
  {"leader":"127.0.0.1:9654","raftGroupMember":["127.0.0.1:9654","127.0.0.1:9652","127.0.0.1:9650"],"term":1}}}},
  "address":"127.0.0.1:10654","grpcReportEnabled":true,"failAccessCnt":0},
 {"ip":"127.0.0.1","port":10652,"state":"UP","extendInfo":{"supportGrayModel":true,"lastRefreshTime":1796218549962,
  "version":"3.1.0-bugfix","raftPort":"9652","readyToUpgrade":true},"address":"127.0.0.1:10652","grpcReportEnabled":true,
  "failAccessCnt":0},
 {"ip":"127.0.0.1","port":10650,"state":"SUSPICIOUS","extendInfo":{"raftPort":"9650","readyToUpgrade":true},
  "address":"127.0.0.1:10650","grpcReportEnabled":true,"failAccessCnt":1}]}`

func TestParseMembers(t *testing.T) {
	got, err := ParseMembers([]byte(membersAnswer))
	if err != nil {
		t.Fatal(err)
	}
	want := []MemberInfo{
		{Address: "127.0.0.1:10654", IP: "127.0.0.1", Port: 10654, State: StateUp, LastRefresh: time.UnixMilli(1796218579011), RaftPort: 9654, Version: "3.1.0-bugfix"},
		{Address: "127.0.0.1:10652", IP: "127.0.0.1", Port: 10652, State: StateUp, LastRefresh: time.UnixMilli(1796218549962), RaftPort: 9652, Version: "3.1.0-bugfix"},
		{Address: "127.0.0.1:10650", IP: "127.0.0.1", Port: 10650, State: StateSuspicious, RaftPort: 9650},
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
