package eurekareal

import (
	"net"
	"strings"
	"testing"
	"time"

	"sdchaos/childproc"
)

// clientFailover runs Netflix's DiscoveryClient (order s1, s2, s3, fetch
// every 1 s, 20 tasks/s) stuck to s1, SIGKILLs s1 and measures the time from
// the kill to the client's next successful fetch from another server.
func (w *world) clientFailover(t *testing.T, sup *childproc.Supervisor) {
	c, err := StartClient(w.ctx, sup, ClientSpec{Name: "scheduler", Servers: serviceURLs(w.servers), FetchInterval: time.Second,
		Rate: 20, Retries: 2, Props: scaledProps(), Logf: func(f string, a ...any) { t.Logf(f, a...) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	first := nextFetch(t, c, 60*time.Second)
	if !first.OK || first.Server != w.servers[0].ServiceURL {
		t.Fatalf("first fetch %+v, want ok from s1 (the first of the list)", first)
	}
	rss, _ := c.RSS()
	t.Logf("client: first fetch ok from %s holding %v; RSS %d MiB", first.Server, first.IDs, rss>>20)
	nextFetch(t, c, 5*time.Second)
	killed := time.Now()
	w.servers[0].Kill()
	if w.servers[0].Alive() || !refused(w.servers[0].URL) {
		t.Fatal("s1 still alive or listening after Kill")
	}
	for {
		f := nextFetch(t, c, 10*time.Second)
		t.Logf("fetch %.0f ms after the kill: ok %v from %q, ids %v, attempts %+v", f.At.Sub(killed).Seconds()*1000, f.OK,
			f.Server, f.IDs, f.Attempts)
		if f.OK && f.Server != w.servers[0].ServiceURL {
			t.Logf("switch time (kill → next successful fetch, from %s): %d ms", f.Server, f.At.Sub(killed).Milliseconds())
			break
		}
	}
	w.countTasks(t, c, killed)
}

// countTasks reads the task lines for 2 s more and logs their outcomes.
func (w *world) countTasks(t *testing.T, c *Client, killed time.Time) {
	n := map[string]int{}
	deadline := time.After(2 * time.Second)
	for {
		select {
		case l, ok := <-c.Lines():
			if !ok {
				t.Fatal("client exited")
			}
			if l.Task != nil && l.Task.Scheduled.After(killed) {
				n[l.Task.Outcome]++
			}
		case <-deadline:
			t.Logf("tasks scheduled after the kill: %v", n)
			if n["ok"] == 0 {
				t.Error("no task succeeded after the kill")
			}
			return
		}
	}
}

// nextFetch returns the client's next fetch line.
func nextFetch(t *testing.T, c *Client, d time.Duration) FetchLine {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case l, ok := <-c.Lines():
			if !ok {
				t.Fatalf("the client exited (log %s)", c.LogPath)
			}
			if l.Err != nil {
				t.Fatalf("bad client line %q: %v", l.Raw, l.Err)
			}
			if l.Fetch != nil {
				return *l.Fetch
			}
		case <-timeout:
			t.Fatalf("no fetch line within %s (log %s)", d, c.LogPath)
		}
	}
}

// refused reports whether nothing listens on url's port any more.
func refused(url string) bool {
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), 200*time.Millisecond)
	if err == nil {
		conn.Close()
		return false
	}
	return true
}
