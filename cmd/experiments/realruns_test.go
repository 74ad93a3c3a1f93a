package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sdchaos/scenarios"
	"sdchaos/scenarios/scentest"
)

// realRun names the test that runs a scenario for real: its package's folder from the module's
// root, the test function, and whether it is in the long tier (scentest.NeedLong: it runs only
// with $SDCHAOS_LONG_TESTS=1, not in go test ./..., whose 30-minute budget it would pass).
type realRun struct {
	dir, test string
	long      bool
}

// realRuns is, for every scenario `experiments list` shows, a test that runs it for real (real
// processes, real sockets) with its checks asserted, in go test ./... or in the long tier.
// TestEveryScenarioHasARealRun holds it to the list and to the tests' source.
var realRuns = map[string]realRun{
	"cache-on-failure":          {"scenarios/article47", "TestCacheOnFailureDiffersFromTheArticleWithGRPC", false},
	"passive-ejection":          {"scenarios/article47", "TestPassiveEjectionReproducesWithOtherParameters", false},
	"minority":                  {"scenarios/article47", "TestMinorityReproduces", false},
	"expiry-latency":            {"scenarios/article40", "TestExpiryLatencyReproducesTheArticle", false},
	"ttl-false-removal":         {"scenarios/article40", "TestTTLFalseRemovalDeterministicBySeed", false},
	"expiry-scan-cost":          {"scenarios/article40", "TestExpiryScanCostReproducesTheArticle", false},
	"nacos-incident":            {"scenarios/nacosincident", "TestNacosIncidentAgainstRealNacos", false},
	"nacos-storm":               {"scenarios/nacosincident", "TestNacosStormAgainstRealNacos", true},
	"registry-jitter":           {"scenarios/nacosarticle", "TestRegistryJitterShort", false},
	"reregistration-storm":      {"scenarios/nacosarticle", "TestReregistrationStormSmall", false},
	"snapshot-at-start":         {"scenarios/nacosarticle", "TestSnapshotAtStartReproduces", false},
	"minority-partition":        {"scenarios/nacosarticle", "TestMinorityPartitionReproducesWithTheLeaderCutOff", false},
	"nacos-member-restart":      {"integration/nacosclusterrun", "TestMemberRestartOnARealNacosCluster", true},
	"nacos-protect-threshold":   {"integration/nacosprotectrun", "TestProtectThresholdAtBothSettings", true},
	"zookeeper-cp":              {"integration/zookeeperrun", "TestZooKeeperCPRuns", true},
	"replication-lag":           {"scenarios/eurekaarticle", "TestEurekaModelScenariosRun", false},
	"eureka-failover":           {"scenarios/eurekaarticle", "TestEurekaFailoverAgainstRealEureka", false},
	"self-preservation":         {"scenarios/eurekaarticle", "TestSelfPreservationRuns", false},
	"eureka-drill":              {"scenarios/eurekaarticle", "TestEurekaModelScenariosRun", false},
	"clock-skew":                {"scenarios/eurekaarticle", "TestEurekaModelScenariosRun", false},
	"instance-dies-unreachable": {"scenarios/anyregistry", "TestBuiltinsRunForRealOnEtcd", false},
	"long-cut":                  {"scenarios/anyregistry", "TestBuiltinsRunForRealOnEtcd", false},
	"member-cut-off":            {"integration/nacosclusterrun", "TestClusterFaultsOnOneRealNacosCluster", false},
	"member-packet-loss":        {"integration/nacosclusterrun", "TestClusterFaultsOnOneRealNacosCluster", false},
	"quorum-loss":               {"integration/nacosclusterrun", "TestClusterFaultsOnOneRealNacosCluster", false},
	"registry-packet-loss":      {"integration/nacosclusterrun", "TestClusterFaultsOnOneRealNacosCluster", false},
	"registry-unreachable":      {"worlds/xds", "TestRegistryUnreachableThroughTheSeam", false},
	"rejoin-at-once":            {"scenarios/anyregistry", "TestBuiltinsRunForRealOnEtcd", false},
	"rejoin-jittered":           {"scenarios/anyregistry", "TestBuiltinsRunForRealOnEtcd", false},
}

// TestEveryScenarioHasARealRun fails when a scenario `experiments list` shows has no test that
// runs it for real, when the test named for it is gone or no longer names the scenario (in its
// body, or in a declaration of its package it uses: a helper, a table, a chain), or when the
// table says it is in the long tier and it is not, or the other way round. It logs the
// scenarios only the long tier runs.
func TestEveryScenarioHasARealRun(t *testing.T) {
	listed := map[string]bool{}
	var long []string
	for _, s := range scenarios.All() {
		listed[s.Name] = true
		r, ok := realRuns[s.Name]
		if !ok {
			t.Errorf("scenario %s has no real run in go test ./...: write a test that runs it for real and name it in realRuns", s.Name)
			continue
		}
		isLong, err := namesScenario(filepath.Join("..", "..", r.dir), r.test, s.Name)
		switch {
		case err != nil:
			t.Errorf("scenario %s: %v", s.Name, err)
		case isLong != r.long:
			t.Errorf("scenario %s: %s calls scentest.NeedLong: %v, the table says long tier: %v", s.Name, r.test, isLong, r.long)
		case isLong:
			long = append(long, s.Name)
		}
	}
	t.Logf("%d scenarios run for real only in the long tier (%s=1): %s", len(long), scentest.LongEnv, strings.Join(long, ", "))
	for name := range realRuns {
		if !listed[name] {
			t.Errorf("realRuns names %s, which experiments list does not show", name)
		}
	}
}

// namesScenario reports an error unless test, a test function in dir's test files, names
// scenario as a string literal in its body or in a top-level declaration of those files its body
// uses; and whether test is in the long tier (it calls scentest.NeedLong).
func namesScenario(dir, test, scenario string) (long bool, err error) {
	decls, err := testDecls(dir)
	if err != nil {
		return false, err
	}
	fn, ok := decls[test].(*ast.FuncDecl)
	if !ok {
		return false, fmt.Errorf("no test %s in %s", test, dir)
	}
	long = callsNeedLong(fn)
	lit := strconv.Quote(scenario)
	if hasLiteral(fn.Body, lit) {
		return long, nil
	}
	found := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && !found {
			if d, ok := decls[id.Name]; ok && d != ast.Node(fn) && hasLiteral(d, lit) {
				found = true
			}
		}
		return !found
	})
	if !found {
		return long, fmt.Errorf("%s (%s) does not name it", test, dir)
	}
	return long, nil
}

// callsNeedLong reports whether fn calls scentest.NeedLong.
func callsNeedLong(fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "NeedLong" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "scentest" {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// testDecls returns the top-level functions and declarations of dir's test files, by name.
func testDecls(dir string) (map[string]ast.Node, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the tests: %w", err)
	}
	decls := map[string]ast.Node{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parsing the tests: %w", err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					decls[d.Name.Name] = d
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if v, ok := s.(*ast.ValueSpec); ok {
						for _, n := range v.Names {
							decls[n.Name] = v
						}
					}
				}
			}
		}
	}
	return decls, nil
}

// hasLiteral reports whether n holds the string literal lit (quoted).
func hasLiteral(n ast.Node, lit string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING && b.Value == lit {
			found = true
		}
		return !found
	})
	return found
}

// TestNamesScenarioFollowsOneLevel: a test names a scenario in its body, through a helper or a
// table it uses, and not through a declaration it does not use.
func TestNamesScenarioFollowsOneLevel(t *testing.T) {
	dir := t.TempDir()
	src := `package x
import "testing"
var chain = []string{"a-chained"}
func helper(t *testing.T) { run(t, "a-helped") }
func unused() string { return "an-unused" }
func run(t *testing.T, name string) {}
func TestDirect(t *testing.T) { run(t, "a-direct") }
func TestHelped(t *testing.T) { helper(t) }
func TestChained(t *testing.T) { for _, n := range chain { run(t, n) } }
`
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		test, scenario string
		ok             bool
	}{
		{"TestDirect", "a-direct", true},
		{"TestHelped", "a-helped", true},
		{"TestChained", "a-chained", true},
		{"TestDirect", "an-unused", false},
		{"TestDirect", "a-helped", false},
		{"TestMissing", "a-direct", false},
	}
	for _, tc := range tests {
		if _, err := namesScenario(dir, tc.test, tc.scenario); (err == nil) != tc.ok {
			t.Errorf("namesScenario(%s, %s) = %v, want ok %v", tc.test, tc.scenario, err, tc.ok)
		}
	}
}
