package zookeeper

import (
	"archive/zip"
	"bufio"
	"context"
	"fmt"
	"strings"

	"sdchaos/history"
	"sdchaos/jvm"
)

// Component names of the ZooKeeper world (history.Component.Name).
const (
	ServerComponent          = "Apache ZooKeeper server"
	GoClientComponent        = "go-zookeeper"
	CuratorComponent         = "Apache Curator service discovery"
	SpringZooKeeperComponent = "Spring Cloud Zookeeper discovery"
)

// GoClientModule is the Go module of the harness's ZooKeeper client.
const GoClientModule = "github.com/go-zookeeper/zk"

// serverArtifact is ZooKeeper's own artifact, shaded into the server piece's jar.
const serverArtifact = "org.apache.zookeeper:zookeeper"

// callerWants are the Java callers piece's artifacts a run names.
var callerWants = []jvm.Want{
	{Name: CuratorComponent, Role: history.RoleClient, Group: "org.apache.curator", Artifact: "curator-x-discovery"},
	{Name: "Apache Curator framework", Role: history.RoleClient, Group: "org.apache.curator", Artifact: "curator-framework"},
	{Name: SpringZooKeeperComponent, Role: history.RoleClient, Group: "org.springframework.cloud", Artifact: "spring-cloud-zookeeper-discovery"},
	{Name: "Spring Cloud LoadBalancer", Role: history.RoleClient, Group: "org.springframework.cloud", Artifact: "spring-cloud-loadbalancer"},
	{Name: "ZooKeeper client (the Java callers')", Role: history.RoleClient, Group: "org.apache.zookeeper", Artifact: "zookeeper"},
	{Name: "Spring Boot", Role: history.RoleFramework, Artifact: "spring-boot"},
	{Name: "Spring Cloud release train", Role: history.RoleFramework, Artifact: "spring-cloud-dependencies", BOM: true},
}

// DescribeEnsemble returns what the ensemble ran, for a run's metadata: the
// server's version as a serving member answers it (srvr's "Zookeeper
// version"), the ZooKeeper artifact the harness's server jar holds when
// the harness started the members, and the Go client (go-zookeeper, from
// the build info) of the instances, policy callers and probes.
func DescribeEnsemble(ctx context.Context, e *Ensemble, logf jvm.Logf) (history.World, error) {
	member, version := servingVersion(ctx, e)
	if version == "" {
		return history.World{}, fmt.Errorf("describing the ZooKeeper ensemble: no member answered srvr with its version")
	}
	who := fmt.Sprintf("%d members started by the harness, each its own JVM", len(e.Members()))
	if e.Dir == "" {
		who = "an ensemble the harness attached to"
	}
	srv := history.Component{Name: ServerComponent, Role: history.RoleServer, Coordinates: serverArtifact, Version: version,
		UsedBy: who, Source: "the srvr four-letter word of member " + member}
	w := history.World{Server: fmt.Sprintf("Apache ZooKeeper %s (%s)", shortVersion(version), who), Components: []history.Component{srv}}
	if e.Dir != "" {
		jarC, err := serverJarComponent(ctx, who, logf)
		if err != nil {
			return history.World{}, err
		}
		w.Components = append(w.Components, jarC, jvm.RuntimeComponent(ctx, who))
	}
	w.Components = append(w.Components, history.GoModule(GoClientComponent, history.RoleClient, GoClientModule,
		"the harness: instances (registrants), policy callers, probes"))
	return w, nil
}

// DescribeJavaCallers returns the Java callers' artifacts (Curator's
// service discovery, Spring Cloud Zookeeper, LoadBalancer, their ZooKeeper
// client, Spring Boot and the release train) as the built jar holds them,
// and the Java runtime.
func DescribeJavaCallers(ctx context.Context, logf jvm.Logf) (history.World, error) {
	inv, err := jvm.InventoryOf(ctx, jvm.ZooKeeperCallers, logf)
	if err != nil {
		return history.World{}, fmt.Errorf("describing the ZooKeeper Java callers: %w", err)
	}
	users := "Java callers"
	return history.World{Components: append(inv.Components(jvm.ZooKeeperCallers, users, callerWants...), jvm.RuntimeComponent(ctx, users))}, nil
}

// servingVersion is the first serving member's name and srvr version ("" when none serves).
func servingVersion(ctx context.Context, e *Ensemble) (member, version string) {
	for _, s := range e.States(ctx) {
		if s.Version != "" {
			return s.Member, s.Version
		}
	}
	return "", ""
}

// shortVersion cuts a srvr version ("3.9.5-<commit>, built on …") to its release.
func shortVersion(v string) string {
	v, _, _ = strings.Cut(v, ",")
	v, _, _ = strings.Cut(v, "-")
	return strings.TrimSpace(v)
}

// serverJarComponent is ZooKeeper's artifact as the built server jar holds
// it: the pom.properties the shade plugin kept of org.apache.zookeeper:zookeeper.
func serverJarComponent(ctx context.Context, usedBy string, logf jvm.Logf) (history.Component, error) {
	jar, err := jvm.Build(ctx, jvm.ZooKeeperServer, logf)
	if err != nil {
		return history.Component{}, fmt.Errorf("describing the ZooKeeper server: %w", err)
	}
	group, artifact, _ := strings.Cut(serverArtifact, ":")
	entry := "META-INF/maven/" + group + "/" + artifact + "/pom.properties"
	props, err := jarProperties(jar, entry)
	if err != nil {
		return history.Component{}, fmt.Errorf("describing the ZooKeeper server: %w", err)
	}
	return history.Component{Name: ServerComponent + " (the artifact in the server jar)", Role: history.RoleServer, Coordinates: serverArtifact,
		Version: props["version"], UsedBy: usedBy, Source: fmt.Sprintf("%s in the built %s jar", entry, jvm.ZooKeeperServer)}, nil
}

// jarProperties reads a properties file (key=value lines) inside a jar.
func jarProperties(jar, entry string) (map[string]string, error) {
	zr, err := zip.OpenReader(jar)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	f, err := zr.Open(entry)
	if err != nil {
		return nil, fmt.Errorf("%s in %s: %w", entry, jar, err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out, sc.Err()
}
