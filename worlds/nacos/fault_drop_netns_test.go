package nacos

import (
	"bufio"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"sdchaos/netns"
	"sdchaos/netns/netnstest"
	"sdchaos/ports"
)

// TestDropClientsInPrivateNetwork checks DropClients on real packets without a JVM: echo servers
// stand for a member's two client ports on 198.18.0.1, a client reaches them through a Link whose
// proxies dial from the clients' address; while the drop holds the link's echo goes unanswered
// and a direct connection from the member's own address (the harness's reads) still answers;
// after the heal the link answers again.
func TestDropClientsInPrivateNetwork(t *testing.T) {
	if !netnstest.Enter(t) {
		return
	}
	const host, main = "198.18.0.1", 26650
	m := &Member{name: "nacos1", host: host, ports: PortsOf(main)}
	for _, p := range m.ports.ClientPorts() {
		echo(t, net.JoinHostPort(host, strconv.Itoa(p)))
	}
	src := netip.MustParseAddr("127.0.0.100")
	l := &Link{name: "client", src: src}
	if err := l.add(ports.New(26660, "test"), m.Addr(), m.GRPCAddr()); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := roundTrip(l.http[0].Addr(), time.Second); err != nil {
		t.Fatalf("through the link before the drop: %v", err)
	}
	f, err := netns.OpenFilter()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := &DropClients{Filter: f, Members: []*Member{m}, Source: src}
	if err := d.Inject(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := roundTrip(l.grpc[0].Addr(), time.Second); err == nil {
		t.Error("the link's gRPC port answered through the drop")
	}
	if err := roundTrip(m.Addr(), time.Second); err != nil {
		t.Errorf("a direct read of the member (the harness's own) during the drop: %v", err)
	}
	if err := d.Heal(t.Context()); err != nil {
		t.Fatal(err)
	}
	if c := d.Counts(); c.Acted == 0 {
		t.Errorf("the drop dropped no packet: %+v", c)
	}
	if err := roundTrip(l.http[0].Addr(), 8*time.Second); err != nil {
		t.Errorf("through the link after the heal: %v", err)
	}
}

// echo serves addr with a line echo until the test ends.
func echo(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					s, err := r.ReadString('\n')
					if err != nil {
						return
					}
					fmt.Fprint(c, s)
				}
			}()
		}
	}()
}

// roundTrip sends a line to addr on a new connection and waits up to d for its echo.
func roundTrip(addr string, d time.Duration) error {
	c, err := net.DialTimeout("tcp", addr, d)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(d))
	if _, err := fmt.Fprintln(c, "ping"); err != nil {
		return err
	}
	s, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if s != "ping\n" {
		return fmt.Errorf("echo %q", s)
	}
	return nil
}
