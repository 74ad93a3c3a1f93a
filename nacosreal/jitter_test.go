package nacosreal

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestJitterIncident runs the Nacos article's incident on the real server and clients and logs
// what happened (a measurement, not yet a judged scenario). It starts five JVMs; set
// SDCHAOS_NACOS_INCIDENT=1 to run it; SDCHAOS_NACOS_JITTER (a Go duration) changes the 18 s and
// SDCHAOS_NACOS_KEEP=1 keeps the server's and the clients' directories (logs, caches).
func TestJitterIncident(t *testing.T) {
	needJVM(t)
	if os.Getenv("SDCHAOS_NACOS_INCIDENT") == "" {
		t.Skip("the incident run takes two minutes and five JVMs: set SDCHAOS_NACOS_INCIDENT=1")
	}
	sup := newSup(t)
	keep := os.Getenv("SDCHAOS_NACOS_KEEP") != ""
	s := startServerSpec(t, sup, 3, func(s *ServerSpec) { s.KeepHome = keep })
	spec := DefaultJitterSpec()
	spec.Logf, spec.KeepDir = t.Logf, keep
	if d, err := time.ParseDuration(os.Getenv("SDCHAOS_NACOS_JITTER")); err == nil {
		spec.Jitter = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := RunJitter(ctx, sup, clientAlloc(3), s, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("per second, ok/not ok (* = links blackholed):\n%s", res.Table())
	t.Logf("timeline:\n%s", res.Timeline())
	for _, n := range res.Names() {
		t.Logf("%s errors: %v", n, res.Errs(n))
	}
	for n, e := range res.Errors {
		t.Errorf("caller %s: %s", n, e)
	}
	rss, _ := s.RSS()
	t.Logf("server RSS at the end: %d MiB", rss>>20)
}
