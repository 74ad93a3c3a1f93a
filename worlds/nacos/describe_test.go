package nacos

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"sdchaos/jvm"
)

// TestDescribeNamesTheBuiltPieces reads the built server and callers jars
// (no JVM started): every artifact the runs name is there with its
// version; the server says it is a third-party republication, the official
// clients do not.
func TestDescribeNamesTheBuiltPieces(t *testing.T) {
	needJVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	s := &Server{name: "nacos", Args: []string{"-Xmx256m", "-Dnacos.standalone=true", "-jar", "app.jar", "--nacos.server.main.port=10700"}}
	w, err := DescribeServer(ctx, s, t.Logf)
	if jvm.Missing(err) {
		t.Skipf("no JVM tool here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range serverWants {
		if c, ok := w.Component(want.Name); !ok || strings.HasPrefix(c.Version, "not ") || c.Version == "" {
			t.Errorf("%s: %+v (found %v)", want.Name, c, ok)
		}
	}
	if c, _ := w.Component(ServerComponent); c.Republication == "" || !strings.Contains(w.Server, c.Version) ||
		!strings.Contains(w.Server, "third-party republication") {
		t.Errorf("server %+v, line %q: want its version and that it is a third-party republication", c, w.Server)
	}
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(b)), " "), "`"+w.Server+"`") {
		t.Errorf("README.md does not quote the server line `%s`", w.Server)
	}
	cw, err := DescribeCallers(ctx, []string{"spring", "go-sdk"}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range callerWants {
		if c, ok := cw.Component(want.Name); !ok || strings.HasPrefix(c.Version, "not ") || c.Version == "" || c.Republication != "" {
			t.Errorf("%s: %+v (found %v): want its version, an official artifact", want.Name, c, ok)
		}
	}
	if c, _ := cw.Component(SDKComponent); !strings.HasPrefix(c.Version, "v2.") {
		t.Errorf("nacos-sdk-go %+v: want its version from the build info", c)
	}
	if goOnly, _ := DescribeCallers(ctx, []string{"go-sdk"}, nil); len(goOnly.Components) != 2 {
		t.Errorf("Go callers only: %+v, want the SDK and gRPC-Go alone", goOnly.Components)
	}
}
