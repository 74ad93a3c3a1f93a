package nacosreal

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// The incident runs start five JVMs and take two to three minutes each: set
// SDCHAOS_NACOS_INCIDENT=1 to run them; SDCHAOS_NACOS_KEEP=1 keeps the server's and the
// clients' directories (logs, caches).

// TestJitterIncident runs the Nacos article's incident (every client link blackholed for 18 s;
// SDCHAOS_NACOS_JITTER, a Go duration, changes it) on the real server and clients and logs what
// happened: a measurement, not yet a judged scenario.
func TestJitterIncident(t *testing.T) {
	res := runIncident(t, 3, func(s *JitterSpec) {
		if d, err := time.ParseDuration(os.Getenv("SDCHAOS_NACOS_JITTER")); err == nil {
			s.Jitter = d
		}
	})
	for n, e := range res.Errors {
		t.Errorf("caller %s: %s", n, e)
	}
}

// TestEmptyRegistry deregisters every instance for 40 s while they stay up: the clients that
// accept an empty list fail, the remedies do not. Spring Cloud LoadBalancer's cache (35 s by
// default) delays its failure.
func TestEmptyRegistry(t *testing.T) {
	res := runIncident(t, 5, func(s *JitterSpec) {
		s.Fault, s.Warmup, s.Jitter, s.After = FaultEmpty, 3*time.Second, 40*time.Second, 5*time.Second
	})
	for n, e := range res.Errors {
		t.Errorf("caller %s: %s", n, e)
	}
	from, to := res.FaultAt.Add(2*time.Second), res.HealAt
	for name, wantFail := range map[string]bool{"plain": true, "go-java-default": true,
		"plain-protect": false, "spring-fallback": false, "go-sdk": false} {
		ok, bad := inWindow(res.Callers[name].Calls, from, to)
		if wantFail && ok > 0 || !wantFail && bad > 0 {
			t.Errorf("%s: %d ok, %d not ok while the registry was empty; want all %s", name, ok, bad,
				map[bool]string{true: "failed", false: "ok"}[wantFail])
		}
	}
	first, n := firstFailure(res.Callers["spring"].Calls, "No instances available")
	if n == 0 {
		t.Errorf("spring never failed with No instances available")
	} else {
		t.Logf("spring: %d calls failed with No instances available, the first due %.1f s after the registry emptied",
			n, first.Sub(res.FaultAt).Seconds())
	}
}

func runIncident(t *testing.T, slot int, edit func(*JitterSpec)) JitterResult {
	t.Helper()
	needJVM(t)
	if os.Getenv("SDCHAOS_NACOS_INCIDENT") == "" {
		t.Skip("the incident runs take minutes and five JVMs: set SDCHAOS_NACOS_INCIDENT=1")
	}
	sup := newSup(t)
	keep := os.Getenv("SDCHAOS_NACOS_KEEP") != ""
	s := startServerSpec(t, sup, slot, func(s *ServerSpec) { s.KeepHome = keep })
	spec := DefaultJitterSpec()
	spec.Logf, spec.KeepDir = t.Logf, keep
	edit(&spec)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := RunJitter(ctx, sup, clientAlloc(slot), s, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("per second, ok/not ok (* = %s):\n%s", spec.Fault, res.Table())
	t.Logf("timeline:\n%s", res.Timeline())
	for _, n := range res.Names() {
		t.Logf("%s errors: %v", n, res.Errs(n))
	}
	rss, _ := s.RSS()
	t.Logf("server RSS at the end: %d MiB", rss>>20)
	return res
}

// inWindow counts ok and not-ok calls due in [from, to).
func inWindow(calls []Call, from, to time.Time) (ok, bad int) {
	for _, c := range calls {
		if c.Scheduled.Before(from) || !c.Scheduled.Before(to) {
			continue
		}
		if c.Outcome == OK {
			ok++
		} else {
			bad++
		}
	}
	return ok, bad
}

// firstFailure returns when the first call whose error contains text was due, and how many.
func firstFailure(calls []Call, text string) (time.Time, int) {
	var first time.Time
	n := 0
	for _, c := range calls {
		if c.Outcome != OK && strings.Contains(c.Err, text) {
			if n == 0 || c.Scheduled.Before(first) {
				first = c.Scheduled
			}
			n++
		}
	}
	return first, n
}
