package nacos

import (
	"path/filepath"
	"strconv"
)

// memberArgs is the JVM command line of cluster member m. As serverArgs, every listener binds
// the member's host (Tomcat by server.address, both gRPC servers by nacos.remote.grpc.listen.ip
// — core BaseGrpcServer.startServer —, JRaft by nacos.server.ip through the piece's
// LoopbackGrpcRaftRpcFactory), and the JVM writes nothing outside home. Cluster mode:
//   - nacos.standalone=false, and nacos.home/conf/cluster.conf lists the members
//     (StartCluster writes it);
//   - -DembeddedStorage=true: the embedded store in cluster mode (Derby on every member,
//     written through JRaft), which persistence DatasourceConfiguration.loadDatasourceConfiguration
//     turns on from this system property; without it and without an external database
//     configured, Nacos switches to an external database (useExternalDb) — no external
//     database is needed;
//   - nacos.server.ip is the member's name in cluster.conf (InetUtils.getSelfIP reads it first).
func memberArgs(m *Member, child []string) []string {
	spec, home := m.spec, m.home
	args := append([]string{
		"-Xms32m", "-Xmx" + strconv.Itoa(spec.Member.HeapMB) + "m", "-XX:+UseSerialGC", "-Xss512k",
		"-XX:ReservedCodeCacheSize=64m"}, child...)
	args = append(args, m.run.cdsArgs()...)
	if spec.Member.QuickJIT {
		args = append(args, "-XX:TieredStopAtLevel=1")
	}
	args = append(args, "-Duser.home="+home,
		"-Dderby.stream.error.file="+filepath.Join(home, "derby.log"),
		"-Dnacos.standalone=false", "-DembeddedStorage=true", "-Dnacos.home="+home,
		"-Dnacos.server.ip="+m.host, "-Dnacos.remote.grpc.listen.ip="+m.host)
	if spec.Mode != AllModules {
		args = append(args, "-Dnacos.functionMode="+string(spec.Mode))
	}
	if spec.PeerLinks { // its cluster gRPC client dials its own proxy to each peer (cluster_peers.go)
		args = append(args, "-Dnacos.server.grpc.port.offset="+strconv.Itoa(PeerOffset(m.index, spec.Size)))
	}
	args = append(args, "-jar", m.run.jar, "--nacos.server.main.port="+strconv.Itoa(m.ports.Main),
		"--server.address="+m.host)
	return append(args, clusterProps(spec)...)
}

// clusterProps are the Spring arguments a ClusterSpec sets, then Member.Props.
func clusterProps(spec ClusterSpec) []string {
	// Nacos's embedded Derby pool waits db.pool.config.connectionTimeout for a connection
	// (the piece's application.properties: 30 s); in cluster mode three JVMs create their
	// stores at once, and on two loaded cores creating one took longer ("Login timeout
	// exceeded", the member does not start). Only the embedded store's pool is affected.
	out := []string{"--db.pool.config.connectionTimeout=120000",
		// Nacos 3 checks the identity of every request between members (member reports,
		// Distro) once every member reports a 3.x version (core InnerApiAuthEnabled.doCheck),
		// auth on or off; without an identity key and value every such request fails
		// (auth AbstractProtocolAuthService.checkServerIdentity: "Invalid server identity key
		// or value"), the members see each other as not UP and Distro stops syncing
		// ("Cancel distro sync caused by target server … unhealthy"), as the first runs here
		// did. Every member gets the same pair.
		"--nacos.core.auth.server.identity.key=" + identityKey,
		"--nacos.core.auth.server.identity.value=" + identityValue}
	if spec.DataWarmup {
		out = append(out, "--nacos.naming.data.warmup=true")
	}
	if spec.DistroLoadRetry > 0 {
		out = append(out, "--nacos.core.protocol.distro.data.load.retryDelayMs="+strconv.FormatInt(spec.DistroLoadRetry.Milliseconds(), 10))
	}
	for _, p := range spec.Member.Props {
		out = append(out, "--"+p)
	}
	return out
}

// identityKey and identityValue are the members' shared server identity (a label between
// processes of one test cluster on one machine, not a secret).
const (
	identityKey   = "sdchaos-member"
	identityValue = "sdchaos-nacos-cluster"
)
