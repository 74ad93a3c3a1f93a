package nacos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// readinessPath is Nacos 3's server readiness endpoint (core ServerStateController); it answers
// 200 with data "ok" once every module's health checker is ready.
const readinessPath = "/nacos/v3/admin/core/state/readiness"

// awaitReady polls the readiness endpoint every 100 ms and records the startup time.
func (s *Server) awaitReady(ctx context.Context, timeout time.Duration) error {
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if s.Ready(ctx) == nil {
			s.started = time.Since(t0)
			return nil
		}
		select {
		case <-s.child.Done():
			return fmt.Errorf("the JVM exited before it was ready (%v); %s", s.child.Err(), logExcerpt(s.logPath))
		case <-ctx.Done():
			return fmt.Errorf("not ready after %s: %w; log %s", timeout, ctx.Err(), s.logPath)
		case <-tick.C:
		}
	}
}

// Ready asks the readiness endpoint once (1 s timeout); nil when the server says ok.
func (s *Server) Ready(ctx context.Context) error {
	var r result[string]
	if err := getJSON(ctx, "http://"+s.Addr()+readinessPath, time.Second, &r); err != nil {
		return fmt.Errorf("readiness of %s: %w", s.name, err)
	}
	if r.Code != 0 || r.Data != "ok" {
		return fmt.Errorf("readiness of %s: code %d, %q", s.name, r.Code, r.Data)
	}
	return nil
}

// result is the envelope of Nacos 3's v3 APIs.
type result[T any] struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    T      `json:"data"`
}

// getJSON GETs url with a timeout and decodes the body into v whatever the status (Nacos
// answers errors in the same envelope).
func getJSON(ctx context.Context, url string, timeout time.Duration, v any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("HTTP %d, decoding: %w", resp.StatusCode, err)
	}
	return nil
}

// logExcerpt returns, for an error message, the log's first ERROR line and its last "Caused
// by" line (the root cause of a failed Spring start), then its last 1000 bytes.
func logExcerpt(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	var firstErr, cause string
	for _, line := range strings.Split(string(b), "\n") {
		if firstErr == "" && strings.Contains(line, " ERROR ") {
			firstErr = line
		}
		if strings.HasPrefix(strings.TrimSpace(line), "Caused by:") {
			cause = strings.TrimSpace(line)
		}
	}
	return fmt.Sprintf("first error: %q; root cause: %q; log %s ends: %s", firstErr, cause, path, logTail(path, 1000))
}

// logTail returns the last n bytes of the file at path, for error messages.
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}
