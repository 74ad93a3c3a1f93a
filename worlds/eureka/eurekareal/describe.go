package eurekareal

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"sdchaos/history"
	"sdchaos/jvm"
)

// Component names of the real Eureka world (history.Component.Name).
const (
	ServerComponent       = "Netflix Eureka server"
	SpringServerComponent = "Spring Cloud Netflix Eureka server"
	ClientComponent       = "Netflix eureka-client"
	SpringBootComponent   = "Spring Boot"
	SpringCloudComponent  = "Spring Cloud release train"
)

// serverWants are the server piece's artifacts a run names.
var serverWants = []jvm.Want{
	{Name: ServerComponent, Role: history.RoleServer, Group: "com.netflix.eureka", Artifact: "eureka-core"},
	{Name: ServerComponent + " (Jersey 3 resources)", Role: history.RoleServer, Group: "com.netflix.eureka", Artifact: "eureka-core-jersey3"},
	{Name: SpringServerComponent, Role: history.RoleServer, Group: "org.springframework.cloud", Artifact: "spring-cloud-netflix-eureka-server",
		Note: "@EnableEurekaServer: runs eureka-core inside Spring Boot"},
	{Name: ClientComponent + " (the servers' own client: peer discovery and the threshold's count)", Role: history.RoleClient,
		Group: "com.netflix.eureka", Artifact: "eureka-client"},
	{Name: SpringBootComponent, Role: history.RoleFramework, Artifact: "spring-boot"},
	{Name: "Spring Cloud Commons", Role: history.RoleFramework, Group: "org.springframework.cloud", Artifact: "spring-cloud-commons"},
	{Name: SpringCloudComponent, Role: history.RoleFramework, Artifact: "spring-cloud-dependencies", BOM: true},
}

// clientWants are the client piece's artifacts a run names.
var clientWants = []jvm.Want{
	{Name: ClientComponent, Role: history.RoleClient, Group: "com.netflix.eureka", Artifact: "eureka-client",
		Note: "Netflix's plain DiscoveryClient, configured through Archaius as a non-Spring user would"},
	{Name: ClientComponent + " (Jersey 3 transport)", Role: history.RoleClient, Group: "com.netflix.eureka", Artifact: "eureka-client-jersey3"},
	{Name: "Archaius (the client's configuration)", Role: history.RoleFramework, Group: "com.netflix.archaius", Artifact: "archaius-core"},
	{Name: SpringCloudComponent, Role: history.RoleFramework, Artifact: "spring-cloud-dependencies", BOM: true,
		Note: "fixes the eureka-client version; no Spring code runs in the scheduler"},
}

// DescribeServers returns what a set of real servers ran, for a run's
// metadata: the server piece's artifacts with their versions as the built
// jar holds them, the Java runtime, and the settings every server of the
// set ran with (its JVM command line and the jar's application.properties)
// under of; the per-node arguments (ports, own URL, peers) are the first
// server's. A running server is asked for the settings it holds
// (Server.Config): each such setting carries the value read back, and one
// that differs from what was given is an error naming both. The server
// line names the server and its version.
func DescribeServers(ctx context.Context, servers []*Server, of string, logf jvm.Logf) (history.World, error) {
	inv, err := jvm.InventoryOf(ctx, jvm.EurekaServer, logf)
	if err != nil {
		return history.World{}, fmt.Errorf("describing the eureka servers: %w", err)
	}
	users := "eureka servers"
	w := history.World{Components: append(inv.Components(jvm.EurekaServer, users, serverWants...), jvm.RuntimeComponent(ctx, users))}
	w.Server = serverLine(w)
	if len(servers) == 0 {
		return w, nil
	}
	given := jvm.ArgSettings(of, servers[0].Args)
	for i := range given {
		if isNodeArg(given[i].Name) {
			given[i].Of = fmt.Sprintf("%s: node %s (each node its own)", of, servers[0].Name)
		}
	}
	w.Settings = append(given, inv.AppSettings(jvm.EurekaServer, of, given)...)
	if servers[0].child == nil { // not started: nothing to read back
		return w, nil
	}
	held, err := servers[0].Config(ctx)
	if err != nil {
		return history.World{}, fmt.Errorf("describing the eureka servers: %w", err)
	}
	return w, readBack(w.Settings, held, servers[0].Name)
}

// readBack sets each setting the server reports to the value it holds,
// saying so in its source, and returns an error naming every one that
// differs from the value given.
func readBack(settings []history.Setting, held map[string]string, server string) error {
	var wrong []string
	for i, st := range settings {
		v, ok := held[st.Name]
		if !ok {
			continue
		}
		if !sameValue(st.Value, v) {
			wrong = append(wrong, fmt.Sprintf("%s given %q, held %q", st.Name, st.Value, v))
		}
		settings[i].Value = v
		settings[i].Source += "; read back from the running server " + server + " (GET /sdchaos/config)"
	}
	if len(wrong) > 0 {
		return fmt.Errorf("eureka %s does not hold the settings it was given (a property name Spring did not bind?): %s",
			server, strings.Join(wrong, "; "))
	}
	return nil
}

// sameValue compares a given and a held value: as numbers when both are
// ("1" and "1.0"), else as text.
func sameValue(given, held string) bool {
	a, errA := strconv.ParseFloat(given, 64)
	b, errB := strconv.ParseFloat(held, 64)
	if errA == nil && errB == nil {
		return a == b
	}
	return given == held
}

// isNodeArg reports whether a server argument differs from node to node (nodeArgs).
func isNodeArg(name string) bool {
	switch name {
	case "sdchaos.name", "server.port", "server.address", "eureka.instance.hostname", "eureka.instance.instance-id",
		"eureka.server.my-url", "eureka.client.service-url.defaultZone", "java.io.tmpdir":
		return true
	}
	return false
}

// serverLine names the server and its version for a report's header.
func serverLine(w history.World) string {
	core, _ := w.Component(ServerComponent)
	sc, _ := w.Component(SpringServerComponent)
	boot, _ := w.Component(SpringBootComponent)
	train, _ := w.Component(SpringCloudComponent)
	return fmt.Sprintf("Netflix Eureka server %s (%s; %s %s, Spring Cloud %s, Spring Boot %s)",
		core.Version, core.Coordinates, sc.Coordinates, sc.Version, train.Version, boot.Version)
}

// clientEnvMeans says what the scheduler program makes of its environment (ClientMain).
var clientEnvMeans = map[string]string{
	"SDCHAOS_EUREKA_URLS":    "eureka.serviceUrl.default, in this order",
	"SDCHAOS_FETCH_INTERVAL": "eureka.client.refresh.interval, seconds",
}

// DescribeClient returns what a real Java scheduler ran: the client piece's
// artifacts, the Spring Boot loader that starts it, the Java runtime, and
// its settings (system properties, JVM options and the environment the
// program turns into client properties).
func DescribeClient(ctx context.Context, c *Client, logf jvm.Logf) (history.World, error) {
	inv, err := jvm.InventoryOf(ctx, jvm.EurekaClient, logf)
	if err != nil {
		return history.World{}, fmt.Errorf("describing the eureka client: %w", err)
	}
	users := "Java schedulers"
	w := history.World{Components: append(inv.Components(jvm.EurekaClient, users, clientWants...),
		inv.Launcher(jvm.EurekaClient, users, "starts the plain-Java scheduler (ClientMain); no Spring code runs"),
		jvm.RuntimeComponent(ctx, users))}
	of := "Java scheduler " + c.Name
	w.Settings = append(jvm.ArgSettings(of, c.Args), jvm.EnvSettings(of, c.Env, clientEnvMeans)...)
	for i, st := range w.Settings {
		if st.Name == "eureka.eurekaServer.connectTimeout" || st.Name == "eureka.eurekaServer.readTimeout" {
			w.Settings[i].Source += " (whole seconds: the client reads it in seconds, see Props.ClientProps)"
		}
	}
	return w, nil
}

// WorkerSettings returns the settings the Go workers (the harness's REST
// clients of Eureka) run with under of: the lease they register and their
// request timeouts.
func WorkerSettings(p Props, of string) []history.Setting {
	renew, dur, _ := p.LeaseSeconds()
	src := "sent in each registration by the harness's Go workers (Props)"
	return []history.Setting{
		{Of: of, Name: "leaseInfo.renewalIntervalInSecs", Value: fmt.Sprint(renew), Source: src},
		{Of: of, Name: "leaseInfo.durationInSecs", Value: fmt.Sprint(dur), Source: src},
		{Of: of, Name: "connect timeout", Value: p.ConnectTimeout.String(), Source: "the Go workers' HTTP client (Props.ConnectTimeout)"},
		{Of: of, Name: "read timeout", Value: p.ReadTimeout.String(), Source: "the Go workers' HTTP client (Props.ReadTimeout)"},
	}
}
