package nacos

import (
	"path/filepath"
	"strconv"
)

// serverArgs is the JVM command line of one server. Every listener is kept on 127.0.0.1:
// Tomcat by server.address (application.properties), the gRPC servers by
// nacos.remote.grpc.listen.ip, JRaft and the UDP push socket by the launcher (see the
// nacos-server piece). The JVM's temp files (RocksDB's native library, Tomcat's work dir) go
// under home, and so does Derby's log (by default derby.log in the working directory), so a
// SIGKILL leaves nothing outside the temp dir; -XX:-UsePerfData keeps /tmp/hsperfdata_* away
// (both in child, jvm.ChildOptions for home/tmp).
func serverArgs(jar, home string, port int, spec ServerSpec, child []string) []string {
	args := append([]string{
		"-Xms32m", "-Xmx" + strconv.Itoa(spec.HeapMB) + "m", "-XX:+UseSerialGC", "-Xss512k",
		"-XX:ReservedCodeCacheSize=64m"}, child...)
	args = append(args, "-Duser.home="+home,
		"-Dderby.stream.error.file="+filepath.Join(home, "derby.log"),
		"-Dnacos.standalone=true", "-Dnacos.home="+home,
		"-Dnacos.server.ip=127.0.0.1", "-Dnacos.remote.grpc.listen.ip=127.0.0.1")
	if spec.QuickJIT {
		args = append(args, "-XX:TieredStopAtLevel=1")
	}
	args = append(args, "-jar", jar, "--nacos.server.main.port="+strconv.Itoa(port))
	for _, p := range spec.Props {
		args = append(args, "--"+p)
	}
	return args
}
