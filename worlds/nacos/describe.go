package nacos

import (
	"context"
	"fmt"

	"sdchaos/history"
	"sdchaos/jvm"
)

// Component names of the real Nacos world (history.Component.Name).
const (
	ServerComponent      = "Nacos server"
	NamingComponent      = "Nacos naming module"
	JavaClientComponent  = "nacos-client"
	SpringNacosComponent = "Spring Cloud Alibaba Nacos discovery"
	LoadBalancerComp     = "Spring Cloud LoadBalancer"
	SpringBootComponent  = "Spring Boot"
	SDKComponent         = "nacos-sdk-go"
)

// serverWants are the server piece's artifacts a run names.
var serverWants = []jvm.Want{
	{Name: ServerComponent, Role: history.RoleServer, Artifact: "nacos-server"},
	{Name: NamingComponent, Role: history.RoleServer, Artifact: "nacos-naming"},
	{Name: "Nacos core (connections, the ejector)", Role: history.RoleServer, Artifact: "nacos-core"},
	{Name: "SOFAJRaft (Nacos's Raft, started even standalone)", Role: history.RoleServer, Group: "com.alipay.sofa", Artifact: "jraft-core"},
	{Name: "gRPC-Java (the server's SDK port)", Role: history.RoleServer, Artifact: "grpc-core"},
	{Name: SpringBootComponent, Role: history.RoleFramework, Artifact: "spring-boot"},
}

// callerWants are the Java callers piece's artifacts a run names.
var callerWants = []jvm.Want{
	{Name: JavaClientComponent, Role: history.RoleClient, Group: "com.alibaba.nacos", Artifact: "nacos-client"},
	{Name: SpringNacosComponent, Role: history.RoleClient, Group: "com.alibaba.cloud", Artifact: "spring-cloud-starter-alibaba-nacos-discovery"},
	{Name: LoadBalancerComp, Role: history.RoleClient, Group: "org.springframework.cloud", Artifact: "spring-cloud-loadbalancer"},
	{Name: "Spring Cloud Commons", Role: history.RoleFramework, Group: "org.springframework.cloud", Artifact: "spring-cloud-commons"},
	{Name: SpringBootComponent, Role: history.RoleFramework, Artifact: "spring-boot"},
	{Name: "Spring Cloud release train", Role: history.RoleFramework, Artifact: "spring-cloud-dependencies", BOM: true},
	{Name: "Spring Cloud Alibaba release", Role: history.RoleFramework, Artifact: "spring-cloud-alibaba-dependencies", BOM: true},
}

// DescribeServer returns what a running server is, for a run's metadata:
// the server piece's artifacts with their versions as the built jar holds
// them (a republication says so), the Java runtime, and the settings it
// runs with (its JVM command line and the piece's application.properties).
// The server line names the server, its version and, for a republication,
// whose it is.
func DescribeServer(ctx context.Context, s *Server, logf jvm.Logf) (history.World, error) {
	inv, err := jvm.InventoryOf(ctx, jvm.NacosServer, logf)
	if err != nil {
		return history.World{}, fmt.Errorf("describing the Nacos server: %w", err)
	}
	users := "the Nacos server"
	w := history.World{Components: append(inv.Components(jvm.NacosServer, users, serverWants...), jvm.RuntimeComponent(ctx, users))}
	lib, _ := inv.Find("", serverWants[0].Artifact)
	w.Server = serverLine(w, lib.RepublishedBrief())
	of := "Nacos server " + s.Name()
	given := jvm.ArgSettings(of, s.Args)
	w.Settings = append(given, inv.AppSettings(jvm.NacosServer, of, given)...)
	return w, nil
}

// serverLine names the server and its version for a report's header, and
// whose code it is when it is a republication (brief).
func serverLine(w history.World, brief string) string {
	c, _ := w.Component(ServerComponent)
	boot, _ := w.Component(SpringBootComponent)
	line := fmt.Sprintf("Nacos server %s (%s, Spring Boot %s", c.Version, c.Coordinates, boot.Version)
	if brief != "" {
		line += "; " + brief
	}
	return line + ")"
}

// DescribeJavaCallers returns the Java callers' artifacts (nacos-client,
// Spring Cloud Alibaba, LoadBalancer, Spring Boot and the release trains)
// and the Java runtime, for a run's metadata.
func DescribeJavaCallers(ctx context.Context, logf jvm.Logf) (history.World, error) {
	inv, err := jvm.InventoryOf(ctx, jvm.NacosCallers, logf)
	if err != nil {
		return history.World{}, fmt.Errorf("describing the Java callers: %w", err)
	}
	users := "Java callers"
	return history.World{Components: append(inv.Components(jvm.NacosCallers, users, callerWants...), jvm.RuntimeComponent(ctx, users))}, nil
}

// DescribeGoClients returns the Go SDK the harness's Nacos clients run
// (nacos-sdk-go and its gRPC), from the build info; usedBy names them.
func DescribeGoClients(usedBy string) history.World {
	return history.World{Components: []history.Component{
		history.GoModule(SDKComponent, history.RoleClient, "github.com/nacos-group/nacos-sdk-go/v2", usedBy),
		history.GoModule("gRPC-Go", history.RoleClient, "google.golang.org/grpc", usedBy+" (nacos-sdk-go's transport)"),
	}}
}

// DescribeCallers returns what the named callers of a jitter run are
// (Java artifacts when one of them is a Java caller) and the Go SDK of the
// instances and Go callers.
func DescribeCallers(ctx context.Context, names []string, logf jvm.Logf) (history.World, error) {
	w := DescribeGoClients("the harness: instances (registrants) and Go callers")
	for _, n := range names {
		if callerKinds[n].java != "" {
			jw, err := DescribeJavaCallers(ctx, logf)
			if err != nil {
				return history.World{}, err
			}
			w.Add(jw)
			break
		}
	}
	return w, nil
}
