// Command discovery-client is an example of a client a user brings to the
// harness with --client 'exec:discovery-client': it reads the instances
// from etcd every second (keeping its list when a read fails), calls them
// round-robin over HTTP at the rate the harness asks for, and prints one
// JSON line per call on stdout — the harness's line protocol:
//
//	{"scheduled":"…","start":"…","end":"…","target":"host:port","outcome":"ok|fail|unknown","err":"…"}
//
// The harness passes its settings in SDCHAOS_ENDPOINTS, SDCHAOS_PREFIX,
// SDCHAOS_RATE, SDCHAOS_START, SDCHAOS_END and SDCHAOS_CALL_TIMEOUT.
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

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
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
	endpoints  []string
	prefix     string
	rate       float64
	start, end time.Time
	timeout    time.Duration
}

func readSettings() (settings, error) {
	var s settings
	var err error
	s.endpoints = strings.Split(os.Getenv("SDCHAOS_ENDPOINTS"), ",")
	s.prefix = os.Getenv("SDCHAOS_PREFIX")
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

// list is the cached instance list, kept when a refresh fails.
type list struct {
	mu    sync.Mutex
	addrs []string
	next  int
}

func (l *list) refresh(ctx context.Context, cli *clientv3.Client, prefix string) {
	c, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	resp, err := cli.Get(c, prefix, clientv3.WithPrefix())
	if err != nil {
		return // keep the old list
	}
	addrs := make([]string, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		addrs = append(addrs, string(kv.Value))
	}
	l.mu.Lock()
	l.addrs = addrs
	l.mu.Unlock()
}

func (l *list) pick() (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.addrs) == 0 {
		return "", false
	}
	l.next++
	return l.addrs[l.next%len(l.addrs)], true
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
	cli, err := clientv3.New(clientv3.Config{Endpoints: s.endpoints, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return err
	}
	defer cli.Close()
	ctx, cancel := context.WithDeadline(context.Background(), s.end)
	defer cancel()
	if exitAfter > 0 {
		ctx, cancel = context.WithTimeout(ctx, exitAfter)
		defer cancel()
	}
	l := &list{}
	l.refresh(ctx, cli, s.prefix)
	go func() {
		for t := time.NewTicker(time.Second); ctx.Err() == nil; <-t.C {
			l.refresh(ctx, cli, s.prefix)
		}
	}()
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
