// Command discovery-client is an example of a client a user brings to the
// harness (an experiment's caller of kind exec, or --client
// 'exec:discovery-client'): it reads the instances from the world's
// registry every second (keeping its list when a read fails), calls them
// round-robin over HTTP at the rate the harness asks for, and prints one
// JSON line per call on stdout — the harness's line protocol:
//
//	{"scheduled":"…","start":"…","end":"…","target":"host:port","outcome":"ok|fail|unknown","err":"…"}
//
// The harness passes its settings in SDCHAOS_RATE, SDCHAOS_START,
// SDCHAOS_END and SDCHAOS_CALL_TIMEOUT, the world in SDCHAOS_REGISTRY and
// SDCHAOS_ENDPOINTS, and where the instances are listed in the world's own
// variables (docs/real-clients.md): etcd's SDCHAOS_PREFIX (etcd.go),
// Nacos's SDCHAOS_SERVICE, SDCHAOS_GROUP and SDCHAOS_NAMESPACE (nacos.go),
// Eureka's SDCHAOS_APP (eureka.go), ZooKeeper's SDCHAOS_BASE_PATH and
// SDCHAOS_SERVICE (zookeeper.go).
//
// Flags make it misbehave on purpose, for the harness's tests: --bad-lines
// N prints N malformed lines first, --exit-after D exits after D.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

type line struct {
	Scheduled time.Time `json:"scheduled"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Target    string    `json:"target,omitempty"`
	Outcome   string    `json:"outcome"`
	Err       string    `json:"err,omitempty"`
}

type settings struct {
	registry   string
	endpoints  []string
	rate       float64
	start, end time.Time
	timeout    time.Duration
}

func readSettings() (settings, error) {
	var s settings
	var err error
	s.registry = os.Getenv("SDCHAOS_REGISTRY")
	s.endpoints = strings.Split(os.Getenv("SDCHAOS_ENDPOINTS"), ",")
	if s.rate, err = strconv.ParseFloat(os.Getenv("SDCHAOS_RATE"), 64); err != nil {
		return s, fmt.Errorf("SDCHAOS_RATE: %w", err)
	}
	if s.start, err = time.Parse(time.RFC3339Nano, os.Getenv("SDCHAOS_START")); err != nil {
		return s, fmt.Errorf("SDCHAOS_START: %w", err)
	}
	if s.end, err = time.Parse(time.RFC3339Nano, os.Getenv("SDCHAOS_END")); err != nil {
		return s, fmt.Errorf("SDCHAOS_END: %w", err)
	}
	if s.timeout, err = time.ParseDuration(os.Getenv("SDCHAOS_CALL_TIMEOUT")); err != nil {
		return s, fmt.Errorf("SDCHAOS_CALL_TIMEOUT: %w", err)
	}
	return s, nil
}

// newLister returns the registry client of the world SDCHAOS_REGISTRY
// names (etcd when unset).
func newLister(s settings) (lister, error) {
	switch s.registry {
	case "", "etcd":
		return newEtcdLister(s.endpoints)
	case "nacos":
		return newNacosLister(s.endpoints)
	case "eureka":
		return newEurekaLister(s.endpoints)
	case "zookeeper":
		return newZKLister(strings.Join(s.endpoints, ","))
	}
	return nil, fmt.Errorf("SDCHAOS_REGISTRY %q: not a world this client knows (etcd, nacos, eureka, zookeeper)", s.registry)
}

func main() {
	badLines := flag.Int("bad-lines", 0, "print this many malformed lines first (a broken client, for tests)")
	exitAfter := flag.Duration("exit-after", 0, "exit after this long (a client that dies early, for tests)")
	flag.Parse()
	if err := run(*badLines, *exitAfter); err != nil {
		fmt.Fprintln(os.Stderr, "discovery-client:", err)
		os.Exit(1)
	}
}

func run(badLines int, exitAfter time.Duration) error {
	s, err := readSettings()
	if err != nil {
		return err
	}
	for range badLines {
		fmt.Println("this is not a JSON line")
	}
	reg, err := newLister(s)
	if err != nil {
		return fmt.Errorf("the %s client: %w", s.registry, err)
	}
	defer reg.close()
	ctx, cancel := context.WithDeadline(context.Background(), s.end)
	defer cancel()
	if exitAfter > 0 {
		ctx, cancel = context.WithTimeout(ctx, exitAfter)
		defer cancel()
	}
	l := &list{}
	l.refresh(ctx, reg)
	go l.refreshEvery(ctx, reg)
	send(ctx, s, l)
	if exitAfter > 0 {
		os.Exit(3)
	}
	return nil
}

// send calls the instances open loop: call k is due at start + k/rate.
func send(ctx context.Context, s settings, l *list) {
	out := json.NewEncoder(os.Stdout)
	var mu sync.Mutex
	var wg sync.WaitGroup
	hc := &http.Client{Timeout: s.timeout}
	for k := 0; ; k++ {
		due := s.start.Add(time.Duration(float64(k) / s.rate * float64(time.Second)))
		if !due.Before(s.end) || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Until(due))
		wg.Add(1)
		go func() {
			defer wg.Done()
			ln := call(hc, l, due)
			mu.Lock()
			_ = out.Encode(ln)
			mu.Unlock()
		}()
	}
	wg.Wait()
}

func call(hc *http.Client, l *list, due time.Time) line {
	ln := line{Scheduled: due, Start: time.Now(), Outcome: "ok"}
	addr, ok := l.pick()
	var err error
	if !ok {
		err = errors.New("no instance")
	} else {
		ln.Target = addr
		var resp *http.Response
		if resp, err = hc.Get("http://" + addr + "/"); err == nil {
			resp.Body.Close()
		}
	}
	ln.End = time.Now()
	if err != nil {
		ln.Outcome, ln.Err = "fail", err.Error()
		var te interface{ Timeout() bool }
		if errors.As(err, &te) && te.Timeout() {
			ln.Outcome = "unknown"
		}
	}
	return ln
}
