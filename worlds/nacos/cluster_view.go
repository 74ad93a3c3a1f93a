package nacos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// NodeState is a member's state as a member sees it (api common/NodeState).
type NodeState string

// The states Nacos gives a member. A member listed in cluster.conf starts UP in every view
// (core MemberUtil.singleParse); a failed member report makes it SUSPICIOUS, and DOWN after
// more than nacos.core.member.fail-access-cnt (3) failures in a row or at once on "Connection
// refused" (MemberUtil.onFail); a successful report makes it UP again (MemberUtil.onSuccess).
// Each member reports to one other member every 2 s, round robin, and to every member not UP
// every 5 s (ServerMemberManager.MemberInfoReportTask, UnhealthyMemberInfoReportTask).
const (
	StateStarting   NodeState = "STARTING"
	StateUp         NodeState = "UP"
	StateSuspicious NodeState = "SUSPICIOUS"
	StateDown       NodeState = "DOWN"
	StateIsolation  NodeState = "ISOLATION"
)

// MemberInfo is one entry of a member's view of the cluster (GET
// /nacos/v3/admin/core/cluster/node/list, core NacosClusterControllerV3.listNodes).
type MemberInfo struct {
	// Address is ip:main port, the member's name in Nacos.
	Address string `json:"address"`
	IP      string `json:"ip"`
	Port    int    `json:"port"`
	State   NodeState
	// LastRefresh is when the viewer last received this member's report (extendInfo
	// lastRefreshTime, set by ServerMemberManager.update when a MemberReportRequest arrives);
	// zero when it never did.
	LastRefresh time.Time
	// RaftPort is the member's JRaft port as the viewer knows it (extendInfo raftPort).
	RaftPort int
	// Version is the Nacos version the member reported ("" before its first report).
	Version string
}

// memberJSON is the members API's JSON for one member (api model/response/NacosMember, core
// cluster/Member): extendInfo values are strings or numbers as the server put them.
type memberJSON struct {
	Address    string         `json:"address"`
	IP         string         `json:"ip"`
	Port       int            `json:"port"`
	State      NodeState      `json:"state"`
	ExtendInfo map[string]any `json:"extendInfo"`
}

// ParseMembers decodes the members API's answer (the v3 envelope with a list of members).
func ParseMembers(body []byte) ([]MemberInfo, error) {
	var r result[[]memberJSON]
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decoding the members list: %w", err)
	}
	return membersFrom(r)
}

// membersFrom converts the decoded answer.
func membersFrom(r result[[]memberJSON]) ([]MemberInfo, error) {
	if r.Code != 0 {
		return nil, fmt.Errorf("members list: code %d %s", r.Code, r.Message)
	}
	out := make([]MemberInfo, 0, len(r.Data))
	for _, m := range r.Data {
		mi := MemberInfo{Address: m.Address, IP: m.IP, Port: m.Port, State: m.State}
		if ms, ok := number(m.ExtendInfo["lastRefreshTime"]); ok {
			mi.LastRefresh = time.UnixMilli(ms)
		}
		if p, ok := number(m.ExtendInfo["raftPort"]); ok {
			mi.RaftPort = int(p)
		}
		mi.Version, _ = m.ExtendInfo["version"].(string)
		out = append(out, mi)
	}
	return out, nil
}

// number reads an extendInfo value that Nacos keeps as a number or as its decimal text.
func number(v any) (int64, bool) {
	switch x := v.(type) {
	case float64:
		return int64(x), true
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	}
	return 0, false
}

// View returns the cluster as member m sees it (2 s timeout).
func (m *Member) View(ctx context.Context) ([]MemberInfo, error) {
	var r result[[]memberJSON]
	if err := getJSON(ctx, "http://"+m.Addr()+"/nacos/v3/admin/core/cluster/node/list", 2*time.Second, &r); err != nil {
		return nil, fmt.Errorf("%s's view of the cluster: %w", m.name, err)
	}
	v, err := membersFrom(r)
	if err != nil {
		return nil, fmt.Errorf("%s's view of the cluster: %w", m.name, err)
	}
	return v, nil
}

// NamingMetrics is naming's own state on one member (GET /nacos/v3/admin/ns/ops/metrics?
// onlyStatus=false, naming OperatorControllerV3.metrics, OperatorV2Impl.metrics).
type NamingMetrics struct {
	// Status is naming's server status (ServerStatusManager): with data warm-up, UP once JRaft
	// has its leaders and Distro has loaded its snapshot, DOWN before; without, UP throughout.
	Status string `json:"status"`
	// ServiceCount and InstanceCount are what this member holds (Distro's copy included).
	ServiceCount  int `json:"serviceCount"`
	InstanceCount int `json:"instanceCount"`
	// ClientCount counts every client the member knows; ResponsibleClientCount those it is
	// responsible for (ClientManager.isResponsibleClient: for a gRPC client, the member holding
	// its connection; for an ip:port client, DistroMapper.responsible).
	ClientCount            int `json:"clientCount"`
	ConnectionBasedClients int `json:"connectionBasedClientCount"`
	ResponsibleClientCount int `json:"responsibleClientCount"`
}

// Naming returns naming's state on m.
func (m *Member) Naming(ctx context.Context) (NamingMetrics, error) {
	var r result[NamingMetrics]
	if err := getJSON(ctx, "http://"+m.Addr()+"/nacos/v3/admin/ns/ops/metrics?onlyStatus=false", 2*time.Second, &r); err != nil {
		return NamingMetrics{}, fmt.Errorf("naming metrics of %s: %w", m.name, err)
	}
	if r.Code != 0 {
		return NamingMetrics{}, fmt.Errorf("naming metrics of %s: code %d %s", m.name, r.Code, r.Message)
	}
	return r.Data, nil
}

// ResponsibleFor returns the member that m's DistroMapper makes responsible for an ip:port
// client (GET /nacos/v3/admin/ns/client/distro, DistroMapper.mapSrv: the hash of "ip:port"
// modulo the sorted list of members UP or SUSPICIOUS in m's view). It applies to instances
// registered over HTTP; a gRPC client's responsible member is the one holding its connection
// (Cluster.Owners).
func (m *Member) ResponsibleFor(ctx context.Context, ip string, port int) (string, error) {
	q := url.Values{"ip": {ip}, "port": {strconv.Itoa(port)}}
	var r result[struct {
		Server string `json:"responsibleServer"`
	}]
	if err := getJSON(ctx, "http://"+m.Addr()+"/nacos/v3/admin/ns/client/distro?"+q.Encode(), 2*time.Second, &r); err != nil {
		return "", fmt.Errorf("%s's responsible member for %s:%d: %w", m.name, ip, port, err)
	}
	if r.Code != 0 {
		return "", fmt.Errorf("%s's responsible member for %s:%d: code %d %s", m.name, ip, port, r.Code, r.Message)
	}
	return r.Data.Server, nil
}

// Connections returns the ids of the SDK connections m holds (GET
// /nacos/v3/admin/core/loader/current, ServerLoaderControllerV3.currentClients); a gRPC
// client's id in naming is its connection id.
func (m *Member) Connections(ctx context.Context) ([]string, error) {
	var r result[map[string]json.RawMessage]
	if err := getJSON(ctx, "http://"+m.Addr()+"/nacos/v3/admin/core/loader/current", 2*time.Second, &r); err != nil {
		return nil, fmt.Errorf("connections of %s: %w", m.name, err)
	}
	if r.Code != 0 {
		return nil, fmt.Errorf("connections of %s: code %d %s", m.name, r.Code, r.Message)
	}
	ids := make([]string, 0, len(r.Data))
	for id := range r.Data {
		ids = append(ids, id)
	}
	return ids, nil
}

// Publisher is one client that registered an instance of a service, as a member knows it (GET
// /nacos/v3/admin/ns/client/service/publisher/list, ClientServiceImpl.getPublishedClientList).
type Publisher struct {
	ClientID string `json:"clientId"`
	IP       string `json:"ip"`
	Port     int    `json:"port"`
	Cluster  string `json:"clusterName"`
}

// Publishers returns the clients m knows to have registered an instance of service (group
// DEFAULT_GROUP, namespace public): its own clients and those Distro copied to it.
func (m *Member) Publishers(ctx context.Context, service string) ([]Publisher, error) {
	q := url.Values{"namespaceId": {"public"}, "groupName": {Group}, "serviceName": {service}}
	var r result[[]Publisher]
	u := "http://" + m.Addr() + "/nacos/v3/admin/ns/client/service/publisher/list?" + q.Encode()
	if err := getJSON(ctx, u, 2*time.Second, &r); err != nil {
		return nil, fmt.Errorf("publishers of %s on %s: %w", service, m.name, err)
	}
	if r.Code != 0 {
		return nil, fmt.Errorf("publishers of %s on %s: code %d %s", service, m.name, r.Code, r.Message)
	}
	return r.Data, nil
}

// ServerState returns m's state as Nacos reports it (GET /nacos/v3/admin/core/state,
// ServerStateController.serverState: every module's settings in force, e.g. startup_mode,
// function_mode, data_load_retryDelayMs, election_timeout_ms), values as text.
func (m *Member) ServerState(ctx context.Context) (map[string]string, error) {
	var r result[map[string]any]
	if err := getJSON(ctx, "http://"+m.Addr()+"/nacos/v3/admin/core/state", 2*time.Second, &r); err != nil {
		return nil, fmt.Errorf("state of %s: %w", m.name, err)
	}
	if r.Code != 0 {
		return nil, fmt.Errorf("state of %s: code %d %s", m.name, r.Code, r.Message)
	}
	out := make(map[string]string, len(r.Data))
	for k, v := range r.Data {
		if v != nil {
			out[k] = fmt.Sprint(v)
		}
	}
	return out, nil
}
