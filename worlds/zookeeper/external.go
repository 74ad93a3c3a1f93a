package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"path"
	"strconv"
	"strings"
	"time"

	"sdchaos/ports"
)

// ErrRemote is returned (wrapped) for a connect string with a host off the
// loopback range when the opt-in (AttachConfig.AllowRemote) is not given: a
// chaos tool must not reach a production ensemble by accident.
var ErrRemote = errors.New("not on the loopback range")

// AttachConfig describes an ensemble the harness did not start.
type AttachConfig struct {
	// ConnectString is a ZooKeeper connect string ("h:p,h:p[/chroot]"); the
	// run's own chroot is created below its chroot, if any.
	ConnectString string
	// AllowRemote allows hosts off the loopback range.
	AllowRemote bool
	// Timeout bounds the first session and the chroot's creation (30 s when 0).
	Timeout time.Duration
	// ClientLinks puts a proxy of the harness (on 127.0.0.1, ports from
	// Alloc) in front of every server, as Config.ClientLinks does.
	ClientLinks bool
	Alloc       *ports.Allocator
}

// ParseConnectString splits a connect string into its host:port servers and
// its chroot ("" when none), refusing a host off the loopback range unless
// allowRemote.
func ParseConnectString(s string, allowRemote bool) (servers []string, chroot string, err error) {
	hosts, chroot := s, ""
	if i := strings.Index(s, "/"); i >= 0 {
		hosts, chroot = s[:i], path.Clean(s[i:])
		if chroot == "/" {
			chroot = ""
		}
	}
	for _, h := range strings.Split(hosts, ",") {
		host, port, err := net.SplitHostPort(strings.TrimSpace(h))
		if err != nil {
			return nil, "", fmt.Errorf("connect string %q: server %q: want host:port", s, h)
		}
		if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return nil, "", fmt.Errorf("connect string %q: server %q: bad port", s, h)
		}
		if !allowRemote && !loopback(host) {
			return nil, "", fmt.Errorf("connect string %q: server %q is %w; allow it explicitly if you mean to inject faults there", s, h, ErrRemote)
		}
		servers = append(servers, net.JoinHostPort(host, port))
	}
	return servers, chroot, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// Attach returns an Ensemble for servers the harness did not start: one
// Member per server (its state from its four-letter words, if the ensemble
// enables them; no process action), and a fresh chroot of the run that Close
// removes. It never starts, kills or changes anything else.
func Attach(ctx context.Context, cfg AttachConfig) (*Ensemble, error) {
	servers, base, err := ParseConnectString(cfg.ConnectString, cfg.AllowRemote)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	e := &Ensemble{}
	for i, s := range servers {
		host, port, _ := net.SplitHostPort(s)
		p, _ := strconv.Atoi(port)
		e.members = append(e.members, &Member{Name: "ext" + strconv.Itoa(i+1), Host: host, Ports: ServerPorts{Client: p}})
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if err := e.makeChrootUnder(ctx, base); err != nil {
		return nil, fmt.Errorf("attaching to %s: %w", cfg.ConnectString, err)
	}
	if cfg.ClientLinks {
		if cfg.Alloc == nil {
			return nil, errors.New("attaching with client links: AttachConfig.Alloc is nil")
		}
		if err := e.linkClients(cfg.Alloc); err != nil {
			_ = e.Close()
			return nil, fmt.Errorf("attaching to %s: %w", cfg.ConnectString, err)
		}
	}
	return e, nil
}
