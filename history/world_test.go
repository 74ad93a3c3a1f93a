package history

import (
	"encoding/json"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
)

func TestWorldAddMergesWithoutRepeating(t *testing.T) {
	srv := Component{Name: "etcd server", Coordinates: "go.etcd.io/etcd/server/v3", Version: "v3.7.2", UsedBy: "members"}
	cli := Component{Name: "gRPC-Go", Coordinates: "google.golang.org/grpc", Version: "v1.83.2", UsedBy: "harness"}
	var w World
	w.Add(World{Server: "etcd v3.7.2", Components: []Component{srv, cli}, Settings: []Setting{{Of: "a", Name: "x", Value: "1"}},
		Constants: []Constant{{Name: "BatchSize", Value: "250"}}})
	w.Add(World{Server: "etcd v3.7.2", Components: []Component{srv}, Settings: []Setting{{Of: "a", Name: "x", Value: "2"}, {Of: "b", Name: "x"}},
		Constants: []Constant{{Name: "BatchSize", Value: "250"}}})
	w.Add(World{Server: "Nacos server 3.1.0-bugfix"})
	if w.Server != "etcd v3.7.2 + Nacos server 3.1.0-bugfix" {
		t.Errorf("server line %q", w.Server)
	}
	if len(w.Components) != 2 || len(w.Settings) != 2 || len(w.Constants) != 1 || w.Settings[0].Value != "1" {
		t.Errorf("merged world %+v: want 2 components, 2 settings (the first value kept), 1 constant", w)
	}
	if c, ok := w.Component("gRPC-Go"); !ok || c != cli {
		t.Errorf("Component(gRPC-Go) = %+v, %v", c, ok)
	}
	if _, ok := w.Component("absent"); ok {
		t.Error("Component(absent) found")
	}
}

func TestModuleVersion(t *testing.T) {
	bi := &debug.BuildInfo{Deps: []*debug.Module{
		{Path: "go.etcd.io/etcd/server/v3", Version: "v3.7.2"},
		{Path: "google.golang.org/grpc", Version: "v1.83.2", Replace: &debug.Module{Path: "example.com/grpc", Version: "v1.83.3"}},
		{Path: "github.com/nacos-group/nacos-sdk-go/v2", Version: "v2.3.2", Replace: &debug.Module{Path: "../sdk"}},
	}}
	tests := []struct{ path, want string }{
		{"go.etcd.io/etcd/server/v3", "v3.7.2"},
		{"google.golang.org/grpc", "v1.83.3 (example.com/grpc, replacing v1.83.2)"},
		{"github.com/nacos-group/nacos-sdk-go/v2", "v2.3.2 (replaced by the local copy ../sdk)"},
		{"example.com/absent", ""},
	}
	for _, tc := range tests {
		if got := moduleVersion(bi, tc.path); got != tc.want {
			t.Errorf("moduleVersion(%s) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestGoModuleSaysWhenAbsent: a module the binary does not use is named
// as absent, never with an empty version.
func TestGoModuleSaysWhenAbsent(t *testing.T) {
	c := GoModule("absent", RoleClient, "example.com/absent", "nobody")
	if c.Version != "not in this binary's build info" || c.Source != GoSource {
		t.Errorf("GoModule of an absent module = %+v", c)
	}
}

func TestMetaJSONKeepsItsNamesAndReadsOldMeta(t *testing.T) {
	m := Meta{SchemaVersion: 3, Etcd: "v3.7.2", World: World{Server: "etcd v3.7.2", Components: []Component{{Name: "etcd server"}}}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema_version", "harness", "go", "etcd", "server", "components"} {
		if _, ok := back[k]; !ok {
			t.Errorf("meta JSON lacks %q: %s", k, b)
		}
	}
	var old Meta
	if err := json.Unmarshal([]byte(`{"schema_version":3,"harness":"x","go":"go1.26","etcd":"v3.7.2","os":"linux"}`), &old); err != nil {
		t.Fatalf("an old meta without the world does not load: %v", err)
	}
	if old.Etcd != "v3.7.2" || old.Server != "" || !reflect.DeepEqual(old.World, World{}) {
		t.Errorf("old meta read as %+v", old)
	}
}

func TestParseGoMod(t *testing.T) {
	mod := `module sdchaos

go 1.26.0

require (
	github.com/nacos-group/nacos-sdk-go/v2 v2.3.2
	go.etcd.io/etcd/server/v3 v3.7.2 // a comment
	google.golang.org/grpc v1.83.2
)

require golang.org/x/perf v0.0.0-20250813145418-2f7363a06fe1 // indirect

replace google.golang.org/grpc => ../grpc

replace (
	go.etcd.io/etcd/server/v3 v3.7.2 => example.com/etcd v3.7.3
)
`
	name, got := parseGoMod([]byte(mod))
	want := map[string]string{
		"github.com/nacos-group/nacos-sdk-go/v2": "v2.3.2",
		"go.etcd.io/etcd/server/v3":              "v3.7.2 (replaced by example.com/etcd v3.7.3)",
		"google.golang.org/grpc":                 "v1.83.2 (replaced by ../grpc)",
		"golang.org/x/perf":                      "v0.0.0-20250813145418-2f7363a06fe1",
	}
	if name != "sdchaos" || !reflect.DeepEqual(got, want) {
		t.Errorf("parseGoMod = %q, %v; want sdchaos, %v", name, got, want)
	}
}

// TestModuleVersionInATestBinary: a test binary's build info lists no
// dependencies; the version comes from the module's go.mod and says so.
func TestModuleVersionInATestBinary(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok || len(bi.Deps) > 0 {
		t.Skip("this binary lists its dependencies")
	}
	v, src := ModuleVersion(EtcdServerModule)
	if !strings.HasPrefix(v, "v3.") || src != GoModSource {
		t.Errorf("ModuleVersion(%s) = %q, %q; want v3.… from go.mod", EtcdServerModule, v, src)
	}
}
