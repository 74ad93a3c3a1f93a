package fault

import (
	"bufio"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"sdchaos/linkproxy"
)

// echoProxy returns a linkproxy in front of a line echo server.
func echoProxy(t *testing.T) *linkproxy.Proxy {
	t.Helper()
	srv, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	go func() {
		for {
			c, err := srv.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	free, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := free.Addr().String()
	free.Close()
	p, err := linkproxy.New(addr, srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// rtt dials the proxy and times one echoed line (error if none within 1 s).
func rtt(p *linkproxy.Proxy) (time.Duration, error) {
	c, err := net.DialTimeout("tcp", p.Addr(), time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	start := time.Now()
	if _, err := c.Write([]byte("x\n")); err != nil {
		return 0, err
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	_, err = bufio.NewReader(c).ReadString('\n')
	return time.Since(start), err
}

// latencyDelay is the one-way delay TestLinkFaults injects: every echoed
// line crosses the proxy twice, so its round trip takes at least twice it.
const latencyDelay = 150 * time.Millisecond

// TestLinkFaults injects and heals each client-link fault through the
// fault interface and checks what a client sees. After the heal a round
// trip must come back below 2 × latencyDelay, the least the latency fault
// gives: whatever the loopback and the scheduler add, a delay still in
// place cannot be shorter.
func TestLinkFaults(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		fault  Healer
		broken func(d time.Duration, err error) bool
	}{
		{Blackhole{}, func(_ time.Duration, err error) bool { return err != nil }},
		{Reject{}, func(_ time.Duration, err error) bool { return err != nil }},
		{Latency{Delay: latencyDelay}, func(d time.Duration, err error) bool { return err == nil && d >= 2*latencyDelay }},
	}
	for _, tc := range tests {
		p := echoProxy(t)
		var f Healer
		switch x := tc.fault.(type) {
		case Blackhole:
			x.Proxies = []*linkproxy.Proxy{p}
			f = x
		case Reject:
			x.Proxies = []*linkproxy.Proxy{p}
			f = x
		case Latency:
			x.Proxies = []*linkproxy.Proxy{p}
			f = x
		}
		t.Run(f.Describe().Label, func(t *testing.T) {
			if err := f.Inject(ctx); err != nil {
				t.Fatal(err)
			}
			if d, err := rtt(p); !tc.broken(d, err) {
				t.Errorf("while injected: rtt %s, err %v", d, err)
			}
			if err := f.Heal(ctx); err != nil {
				t.Fatal(err)
			}
			if d, err := rtt(p); err != nil || d >= 2*latencyDelay {
				t.Errorf("after heal: rtt %s, err %v (want below %s)", d, err, 2*latencyDelay)
			}
		})
	}
}
