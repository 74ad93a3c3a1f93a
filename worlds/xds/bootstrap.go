package xds

import (
	"encoding/json"
	"fmt"
)

// ServerFeatureIgnoreResourceDeletion is the bootstrap server feature of
// gRFC A53 (grpc-go internal/xds/bootstrap/bootstrap.go,
// serverFeaturesIgnoreResourceDeletion).
const ServerFeatureIgnoreResourceDeletion = "ignore_resource_deletion"

// Bootstrap is an xDS client's bootstrap: the one control plane it talks
// to, and whether it ignores resource deletions (gRFC A53).
type Bootstrap struct {
	// Server is the control plane's address ("127.0.0.1:port").
	Server string
	// NodeID names the client to the control plane.
	NodeID string
	// IgnoreResourceDeletion adds the ignore_resource_deletion server
	// feature (to every server).
	IgnoreResourceDeletion bool
	// Fallback lists lower-priority control planes, in order (gRFC A71; see
	// FallsBackOnlyWhenUncached).
	Fallback []string
}

type bootstrapServer struct {
	URI      string           `json:"server_uri"`
	Creds    []map[string]any `json:"channel_creds"`
	Features []string         `json:"server_features"`
}

type bootstrapFile struct {
	Servers []bootstrapServer `json:"xds_servers"`
	Node    map[string]any    `json:"node"`
}

// JSON returns the bootstrap as gRPC-Go reads it from
// GRPC_XDS_BOOTSTRAP_CONFIG (insecure channel credentials: loopback only).
func (b Bootstrap) JSON() ([]byte, error) {
	if b.Server == "" || b.NodeID == "" {
		return nil, fmt.Errorf("bootstrap: server (%q) and node id (%q) are required", b.Server, b.NodeID)
	}
	features := []string{"xds_v3"}
	if b.IgnoreResourceDeletion {
		features = append(features, ServerFeatureIgnoreResourceDeletion)
	}
	f := bootstrapFile{Node: map[string]any{"id": b.NodeID}}
	for _, uri := range append([]string{b.Server}, b.Fallback...) {
		f.Servers = append(f.Servers, bootstrapServer{URI: uri, Creds: []map[string]any{{"type": "insecure"}}, Features: features})
	}
	out, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	return out, nil
}
