package eurekareal

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/jvm"
)

// describeCtx bounds a description, which builds the piece when this
// machine never did (minutes, the first time).
func describeCtx(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the real Eureka pieces with Maven when they were never built here")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestDescribeNamesTheBuiltServer reads the built server jar: every
// artifact the runs name is in it with its version, no JVM started.
func TestDescribeNamesTheBuiltServer(t *testing.T) {
	ctx := describeCtx(t)
	s := &Server{Name: "s1", Args: []string{"-Xmx128m", "-jar", "app.jar", "--eureka.server.enable-self-preservation=false",
		"--server.port=9600", "--eureka.server.my-url=http://127.0.0.1:9600/eureka/"}}
	w, err := DescribeServers(ctx, []*Server{s}, "eureka servers (cluster on)", t.Logf)
	if jvm.Missing(err) {
		t.Skipf("no JVM tool here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range serverWants {
		c, ok := w.Component(want.Name)
		if !ok || c.Version == "" || strings.HasPrefix(c.Version, "not ") || c.Republication != "" {
			t.Errorf("%s: %+v (found %v): want its version from the jar, no republication", want.Name, c, ok)
		}
	}
	if c, _ := w.Component("Java runtime"); c.Version == "" || strings.HasPrefix(c.Version, "unknown") {
		t.Errorf("Java runtime %+v", c)
	}
	if !strings.HasPrefix(w.Server, "Netflix Eureka server 2.") || !strings.Contains(w.Server, "com.netflix.eureka:eureka-core") {
		t.Errorf("server line %q", w.Server)
	}
	readmeQuotes(t, w.Server)
	of := map[string]string{}
	for _, st := range w.Settings {
		of[st.Name] = st.Of
	}
	switch {
	case of["eureka.server.enable-self-preservation"] != "eureka servers (cluster on)":
		t.Errorf("a property every server has: of %q", of["eureka.server.enable-self-preservation"])
	case of["server.port"] != "eureka servers (cluster on): node s1 (each node its own)":
		t.Errorf("a node's own property: of %q", of["server.port"])
	case of["eureka.client.register-with-eureka"] == "":
		t.Errorf("the jar's application.properties are not among the settings: %+v", w.Settings)
	}
}

// readmeQuotes requires the README's JSON contract to quote the server line
// as the built jar gives it (its example stays true after a version bump).
func readmeQuotes(t *testing.T, line string) {
	t.Helper()
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(b)), " "), "`"+line+"`") {
		t.Errorf("README.md does not quote the server line `%s`", line)
	}
}

// TestDescribeNamesTheBuiltClient reads the built client jar.
func TestDescribeNamesTheBuiltClient(t *testing.T) {
	ctx := describeCtx(t)
	c := &Client{Name: "scheduler-fetch-15s", Args: []string{"-Deureka.eurekaServer.readTimeout=2", "-Xmx64m", "-jar", "app.jar"},
		Env: []string{"SDCHAOS_FETCH_INTERVAL=3"}}
	w, err := DescribeClient(ctx, c, t.Logf)
	if jvm.Missing(err) {
		t.Skipf("no JVM tool here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ClientComponent, ClientComponent + " (Jersey 3 transport)", SpringCloudComponent, "Spring Boot loader", "Java runtime"} {
		if c, ok := w.Component(name); !ok || c.Version == "" || strings.HasPrefix(c.Version, "not ") {
			t.Errorf("%s: %+v (found %v)", name, c, ok)
		}
	}
	if len(w.Settings) != 3 || w.Settings[2].Source != jvm.SourceEnv+" (eureka.client.refresh.interval, seconds)" {
		t.Errorf("settings %+v: want the read timeout, the JVM options and the fetch interval with its meaning", w.Settings)
	}
}

func TestReadBackSetsWhatTheServerHolds(t *testing.T) {
	given := []history.Setting{
		{Name: "eureka.server.renewal-percent-threshold", Value: "1", Source: jvm.SourceSpringArg},
		{Name: "eureka.server.enable-self-preservation", Value: "false", Source: jvm.SourceSpringArg},
		{Name: "JVM options", Value: "-Xmx128m", Source: jvm.SourceJVMOptions},
	}
	held := map[string]string{"eureka.server.renewal-percent-threshold": "1.0", "eureka.server.enable-self-preservation": "false",
		"eureka.server.registry-sync-retries": "0"}
	if err := readBack(given, held, "s1"); err != nil {
		t.Fatal(err)
	}
	if given[0].Value != "1.0" || !strings.HasSuffix(given[0].Source, "read back from the running server s1 (GET /sdchaos/config)") ||
		given[2].Source != jvm.SourceJVMOptions {
		t.Errorf("settings after the read-back: %+v", given)
	}
	// A property the server did not bind holds its default: the run says so.
	typo := []history.Setting{{Name: "eureka.server.enable-self-preservation", Value: "false"}}
	err := readBack(typo, map[string]string{"eureka.server.enable-self-preservation": "true"}, "s1")
	if err == nil || !strings.Contains(err.Error(), `eureka.server.enable-self-preservation given "false", held "true"`) {
		t.Errorf("a setting the server does not hold: err %v", err)
	}
}

func TestSameValue(t *testing.T) {
	tests := []struct {
		given, held string
		want        bool
	}{
		{"1", "1.0", true}, {"0.85", "0.85", true}, {"30000", "30000", true}, {"true", "true", true},
		{"0.85", "0.8", false}, {"false", "true", false}, {"1000", "60000", false},
	}
	for _, tc := range tests {
		if got := sameValue(tc.given, tc.held); got != tc.want {
			t.Errorf("sameValue(%q, %q) = %v, want %v", tc.given, tc.held, got, tc.want)
		}
	}
}
