package netns_test

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"sdchaos/clock"
	"sdchaos/netns"
	"sdchaos/netns/netnstest"
)

// probeDeadline bounds one probe (connect, send a byte, read its echo)
// under a rule that drops packets. Linux retransmits a lost segment no
// sooner than TCP_RTO_MIN = 200 ms after sending it (data, and tail-loss
// probes with one segment in flight; the SYN after its 1 s initial
// timeout), and the deadline's own timer may fire one late wake-up
// (clock.SchedSlack) after it: at 200 ms − SchedSlack an echo of a
// retransmitted segment always comes too late, so a probe succeeds exactly
// when neither its SYN nor its data segment was dropped.
const probeDeadline = 200*time.Millisecond - clock.SchedSlack

// answerDeadline bounds a probe where no rule drops anything (before the
// rules, under a reset, after the heal): no segment is lost, so the
// deadline only has to outlast what a loaded machine takes to answer; a
// probe that fails there failed by an error, or by waiting this long.
const answerDeadline = 2 * time.Second

// TestPacketDropAndReset measures, inside a private namespace, what the
// filter's rules do to TCP probes from 198.18.0.2 to an echo server on
// 198.18.0.1: none fail before; every one fails under a 100 % drop; the
// share expected from the loss under a 30 % drop; every one is refused
// under a reset; none after the heal; and no table is left after Close.
func TestPacketDropAndReset(t *testing.T) {
	if !netnstest.Enter(t) {
		return
	}
	server := echoServer(t, netns.MemberAddr(0))
	client := netns.MemberAddr(1)
	f, err := netns.OpenFilter()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	toServer := netns.Match{Dst: server.Addr(), DstPort: server.Port()}

	if r := probes(server, client, 50, answerDeadline); r.failed != 0 {
		t.Fatalf("before any rule: %d of 50 probes failed: %v", r.failed, r.errs)
	}
	checkFullDrop(t, f, toServer, server, client)
	checkPartialDrop(t, f, toServer, server, client, 0.3)
	checkReset(t, f, toServer, server, client)
	if r := probes(server, client, 50, answerDeadline); r.failed != 0 {
		t.Errorf("after the heal: %d of 50 probes failed: %v", r.failed, r.errs)
	}
	name := f.Table()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	tables, err := netns.Tables()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(tables, name) {
		t.Errorf("table %s left after Close: %v", name, tables)
	}
}

func checkFullDrop(t *testing.T, f *netns.Filter, m netns.Match, server netip.AddrPort, client netip.Addr) {
	a := apply(t, f, "drop 100 %", netns.Rule{Match: m, Loss: 1, Action: netns.Drop})
	r := probes(server, client, 20, probeDeadline)
	c := counts(t, a)
	remove(t, a)
	if r.failed != 20 || !r.allTimeouts() {
		t.Errorf("100 %% drop: %d of 20 probes failed (want 20, all timeouts): %v", r.failed, r.errs)
	}
	if c.Selected == 0 || c.Acted != c.Selected {
		t.Errorf("100 %% drop: rule selected %d packets and dropped %d (want all)", c.Selected, c.Acted)
	}
	t.Logf("100 %% drop: %d/20 probes failed; %d of %d packets dropped", r.failed, c.Acted, c.Selected)
}

// checkPartialDrop judges the share of packets dropped against the loss p,
// and the share of probes that succeed against (1-p)² (the SYN and the data
// segment must both pass), each within 4.5 binomial standard deviations.
func checkPartialDrop(t *testing.T, f *netns.Filter, m netns.Match, server netip.AddrPort, client netip.Addr, p float64) {
	a := apply(t, f, "drop 30 %", netns.Rule{Match: m, Loss: p, Action: netns.Drop})
	const n = 400
	r := probes(server, client, n, probeDeadline)
	c := counts(t, a)
	remove(t, a)
	dropped := float64(c.Acted) / float64(c.Selected)
	if lo, hi := band(p, int(c.Selected)); dropped < lo || dropped > hi {
		t.Errorf("%.0f %% drop: %d of %d packets dropped (%.3f), want %.3f–%.3f", 100*p, c.Acted, c.Selected, dropped, lo, hi)
	}
	ok := float64(n-r.failed) / n
	if lo, hi := band((1-p)*(1-p), n); ok < lo || ok > hi {
		t.Errorf("%.0f %% drop: %d of %d probes succeeded (%.3f), want %.3f–%.3f", 100*p, n-r.failed, n, ok, lo, hi)
	}
	if !r.allTimeouts() {
		t.Errorf("%.0f %% drop: a probe failed otherwise than by its deadline: %v", 100*p, r.errs)
	}
	t.Logf("%.0f %% drop: %d of %d packets dropped (%.3f); %d of %d probes succeeded (%.3f, expected %.3f)",
		100*p, c.Acted, c.Selected, dropped, n-r.failed, n, ok, (1-p)*(1-p))
}

// checkReset requires every probe refused (the RST answering its SYN), all
// 20 within one answerDeadline: a probe whose SYN was dropped instead would
// wait the whole deadline, and the 20 run in two rounds of 16.
func checkReset(t *testing.T, f *netns.Filter, m netns.Match, server netip.AddrPort, client netip.Addr) {
	a := apply(t, f, "reset", netns.Rule{Match: m, Loss: 1, Action: netns.Reset})
	start := time.Now()
	r := probes(server, client, 20, answerDeadline)
	took := time.Since(start)
	remove(t, a)
	refused := 0
	for _, err := range r.errs {
		if errors.Is(err, syscall.ECONNREFUSED) {
			refused++
		}
	}
	if refused != 20 || took >= answerDeadline {
		t.Errorf("reset: %d of 20 probes refused in %s (want 20, within %s): %v", refused, took, answerDeadline, r.errs)
	}
	t.Logf("reset: %d of 20 probes refused in %s", refused, took)
}

// band returns p ± 4.5 binomial standard deviations for n draws.
func band(p float64, n int) (lo, hi float64) {
	d := 4.5 * math.Sqrt(p*(1-p)/float64(n))
	return p - d, p + d
}

func apply(t *testing.T, f *netns.Filter, label string, r netns.Rule) *netns.Applied {
	t.Helper()
	a, err := f.Apply(label, []netns.Rule{r})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func counts(t *testing.T, a *netns.Applied) netns.Counts {
	t.Helper()
	c, err := a.Counts()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func remove(t *testing.T, a *netns.Applied) {
	t.Helper()
	if err := a.Remove(); err != nil {
		t.Fatal(err)
	}
}

// echoServer listens on addr and echoes every byte until the test ends.
func echoServer(t *testing.T, addr netip.Addr) netip.AddrPort {
	t.Helper()
	l, err := net.Listen("tcp", netip.AddrPortFrom(addr, 0).String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 1)
				_ = c.SetDeadline(time.Now().Add(2 * time.Second))
				if _, err := c.Read(buf); err == nil {
					_, _ = c.Write(buf)
				}
			}()
		}
	}()
	return netip.MustParseAddrPort(l.Addr().String())
}

type result struct {
	failed int
	errs   []error
}

// allTimeouts reports whether every failure was a deadline.
func (r result) allTimeouts() bool {
	for _, err := range r.errs {
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			return false
		}
	}
	return true
}

// probes runs n probes, 16 at a time, from client to server, each within deadline.
func probes(server netip.AddrPort, client netip.Addr, n int, deadline time.Duration) result {
	var (
		mu  sync.Mutex
		r   result
		wg  sync.WaitGroup
		sem = make(chan struct{}, 16)
	)
	for range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := probe(server, client, deadline); err != nil {
				mu.Lock()
				r.failed++
				r.errs = append(r.errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return r
}

// probe connects from client, sends one byte and reads its echo, all
// within deadline.
func probe(server netip.AddrPort, client netip.Addr, deadline time.Duration) error {
	start := time.Now()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: client.AsSlice()}, Timeout: deadline}
	c, err := d.Dial("tcp", server.String())
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(start.Add(deadline))
	if _, err := c.Write([]byte{'x'}); err != nil {
		return err
	}
	buf := make([]byte, 1)
	if _, err := c.Read(buf); err != nil {
		return err
	}
	if buf[0] != 'x' {
		return fmt.Errorf("echo %q", buf)
	}
	return nil
}
