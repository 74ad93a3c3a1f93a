package xds

import (
	"fmt"
	"net/netip"
	"slices"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	routerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	"github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Names of the xDS resources of a service: the listener is named after the
// service, since gRPC-Go's default client listener resource name template
// is "%s" (xds:///api asks LDS for "api").
type Names struct{ Listener, Route, Cluster string }

// NamesOf returns the resource names of service.
func NamesOf(service string) Names {
	return Names{Listener: service, Route: service + "-route", Cluster: service + "-cluster"}
}

// Content says which resources a snapshot carries.
type Content int

// The snapshot contents the control plane serves.
const (
	// Full: listener, route, cluster and every endpoint.
	Full Content = iota
	// NoEndpoints: listener, route, cluster and an empty load assignment.
	NoEndpoints
	// Nothing: no resource of any type.
	Nothing
)

// BuildSnapshot returns a snapshot of version for service with the given
// endpoints (sorted, so equal lists give equal snapshots). Its references
// (listener → route → cluster → load assignment) come from one Names, so
// it is consistent by construction: go-control-plane's Snapshot.Consistent
// cannot tell, since it reads route names only from a listener's filter
// chains (pkg/cache/v3/resource.go getListenerReferences), not from the
// API listener a proxyless gRPC client uses.
func BuildSnapshot(version, service string, eps []netip.AddrPort, content Content) (*cachev3.Snapshot, error) {
	res := map[resource.Type][]types.Resource{}
	if content != Nothing {
		n := NamesOf(service)
		lis, err := apiListener(n)
		if err != nil {
			return nil, err
		}
		if content == NoEndpoints {
			eps = nil
		}
		res[resource.ListenerType] = []types.Resource{lis}
		res[resource.RouteType] = []types.Resource{routeConfig(service, n)}
		res[resource.ClusterType] = []types.Resource{edsCluster(n)}
		res[resource.EndpointType] = []types.Resource{loadAssignment(n.Cluster, eps)}
	}
	snap, err := cachev3.NewSnapshot(version, res)
	if err != nil {
		return nil, fmt.Errorf("building snapshot %s: %w", version, err)
	}
	return snap, nil
}

func adsSource() *corev3.ConfigSource {
	return &corev3.ConfigSource{ResourceApiVersion: corev3.ApiVersion_V3,
		ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}}}
}

// apiListener is a proxyless gRPC listener: an API listener whose
// HttpConnectionManager takes its routes from RDS over ADS, with the
// router filter last (gRPC-Go rejects a filter chain without it).
func apiListener(n Names) (*listenerv3.Listener, error) {
	router, err := anypb.New(&routerv3.Router{})
	if err != nil {
		return nil, fmt.Errorf("packing the router filter: %w", err)
	}
	hcm, err := anypb.New(&hcmv3.HttpConnectionManager{
		RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{ConfigSource: adsSource(), RouteConfigName: n.Route}},
		HttpFilters: []*hcmv3.HttpFilter{{Name: "router",
			ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: router}}},
	})
	if err != nil {
		return nil, fmt.Errorf("packing the connection manager: %w", err)
	}
	return &listenerv3.Listener{Name: n.Listener, ApiListener: &listenerv3.ApiListener{ApiListener: hcm}}, nil
}

func routeConfig(service string, n Names) *routev3.RouteConfiguration {
	return &routev3.RouteConfiguration{Name: n.Route, VirtualHosts: []*routev3.VirtualHost{{
		Name: service, Domains: []string{"*"},
		Routes: []*routev3.Route{{
			Match:  &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}},
			Action: &routev3.Route_Route{Route: &routev3.RouteAction{ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: n.Cluster}}},
		}},
	}}}
}

func edsCluster(n Names) *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: n.Cluster,
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS},
		EdsClusterConfig:     &clusterv3.Cluster_EdsClusterConfig{EdsConfig: adsSource()},
		LbPolicy:             clusterv3.Cluster_ROUND_ROBIN}
}

// loadAssignment puts every endpoint in one locality of weight 1 (gRPC-Go
// ignores localities without a weight).
func loadAssignment(cluster string, eps []netip.AddrPort) *endpointv3.ClusterLoadAssignment {
	sorted := slices.Clone(eps)
	slices.SortFunc(sorted, func(a, b netip.AddrPort) int { return a.Compare(b) })
	var lbs []*endpointv3.LbEndpoint
	for _, ep := range sorted {
		lbs = append(lbs, &endpointv3.LbEndpoint{HealthStatus: corev3.HealthStatus_HEALTHY,
			HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{
				Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
					Address: ep.Addr().String(), PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: uint32(ep.Port())}}}}}}})
	}
	cla := &endpointv3.ClusterLoadAssignment{ClusterName: cluster}
	if len(lbs) > 0 {
		cla.Endpoints = []*endpointv3.LocalityLbEndpoints{{
			Locality:            &corev3.Locality{Region: "sdchaos", Zone: "loopback"},
			LoadBalancingWeight: wrapperspb.UInt32(1), LbEndpoints: lbs}}
	}
	return cla
}
