package xds

import (
	"context"
	"fmt"
	"net"
	"strconv"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"sdchaos/caller"
	"sdchaos/fakeservice"
)

// edsSource is a policy caller's registry client in the xDS world: each
// List is one state-of-the-world EDS request for the service's cluster on
// a fresh ADS stream to the control plane, answered (go-control-plane
// answers a new stream with the snapshot's resource: ResendsOnNewStream)
// or failed within the refresh's deadline. The load assignment's gRPC
// addresses are mapped to the instances' HTTP addresses, which the policy
// callers call (the same instance: a crash stops both).
type edsSource struct {
	conn    *grpc.ClientConn
	node    string
	cluster string
	byGRPC  map[string]caller.Endpoint
}

// newEDSSource returns the source reading cluster from the control plane
// at addr as node, for the instances of group.
func newEDSSource(addr, node, cluster string, group *fakeservice.Group) (*edsSource, error) {
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("EDS source: %w", err)
	}
	s := &edsSource{conn: conn, node: "policy-" + node, cluster: cluster, byGRPC: map[string]caller.Endpoint{}}
	for _, in := range group.Instances {
		s.byGRPC[in.GRPCAddr] = caller.Endpoint{ID: in.ID, Addr: in.Addr}
	}
	return s, nil
}

// List reads the cluster's load assignment once.
func (s *edsSource) List(ctx context.Context) ([]caller.Endpoint, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := discoveryv3.NewAggregatedDiscoveryServiceClient(s.conn).StreamAggregatedResources(ctx)
	if err != nil {
		return nil, fmt.Errorf("EDS: opening the ADS stream: %w", err)
	}
	req := &discoveryv3.DiscoveryRequest{Node: &corev3.Node{Id: s.node}, TypeUrl: resource.EndpointType, ResourceNames: []string{s.cluster}}
	if err := st.Send(req); err != nil {
		return nil, fmt.Errorf("EDS: sending the request: %w", err)
	}
	resp, err := st.Recv()
	if err != nil {
		return nil, fmt.Errorf("EDS: receiving the response: %w", err)
	}
	return s.endpoints(resp)
}

// endpoints maps a response's load assignments to the instances.
func (s *edsSource) endpoints(resp *discoveryv3.DiscoveryResponse) ([]caller.Endpoint, error) {
	var out []caller.Endpoint
	for _, a := range resp.GetResources() {
		var cla endpointv3.ClusterLoadAssignment
		if err := a.UnmarshalTo(&cla); err != nil {
			return nil, fmt.Errorf("EDS: decoding %s: %w", a.GetTypeUrl(), err)
		}
		for _, loc := range cla.GetEndpoints() {
			for _, lb := range loc.GetLbEndpoints() {
				sa := lb.GetEndpoint().GetAddress().GetSocketAddress()
				addr := net.JoinHostPort(sa.GetAddress(), strconv.Itoa(int(sa.GetPortValue())))
				ep, ok := s.byGRPC[addr]
				if !ok {
					return nil, fmt.Errorf("EDS: endpoint %s is none of the world's instances", addr)
				}
				out = append(out, ep)
			}
		}
	}
	return out, nil
}

// Close closes the source's connection.
func (s *edsSource) Close() { _ = s.conn.Close() }
