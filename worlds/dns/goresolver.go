package dns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"sdchaos/caller"
	"sdchaos/history"
)

// ResolverConfig describes a client that resolves one name through one
// DNS server, open loop.
type ResolverConfig struct {
	// Name labels the client's ops.
	Name string
	// Rate is the open-loop lookup rate per second.
	Rate float64
	// Server is the DNS server's address ("127.0.0.1:port").
	Server string
	// Host is the name resolved (fully qualified: no search list).
	Host string
	// QType is TypeA (the addresses) or TypeSRV (the ports).
	QType QType
	// Timeout bounds each lookup.
	Timeout time.Duration
}

// GoResolver is Go's own resolver (net.Resolver with PreferGo) dialing
// the DNS server: it keeps no cache (GoResolverCaches), so every lookup is
// a query. It records one op per lookup (history.OpRefresh: Count the
// records, Value the addresses or ports).
type GoResolver struct {
	cfg ResolverConfig
	r   *net.Resolver
}

// NewGoResolver returns the client.
func NewGoResolver(cfg ResolverConfig) *GoResolver {
	server := cfg.Server
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, server)
	}
	return &GoResolver{cfg: cfg, r: &net.Resolver{PreferGo: true, Dial: dial}}
}

// Name returns the client's name.
func (g *GoResolver) Name() string { return g.cfg.Name }

// Resolve looks the name up once and returns what it found, sorted
// ("127.0.0.1" for A, the ports for SRV).
func (g *GoResolver) Resolve(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, g.cfg.Timeout)
	defer cancel()
	var out []string
	switch g.cfg.QType {
	case TypeA:
		ips, err := g.r.LookupNetIP(ctx, "ip4", g.cfg.Host)
		if err != nil {
			return nil, fmt.Errorf("resolving %s A: %w", g.cfg.Host, err)
		}
		for _, ip := range ips {
			out = append(out, ip.String())
		}
	case TypeSRV:
		_, srvs, err := g.r.LookupSRV(ctx, "", "", g.cfg.Host)
		if err != nil {
			return nil, fmt.Errorf("resolving %s SRV: %w", g.cfg.Host, err)
		}
		for _, s := range srvs {
			out = append(out, strconv.Itoa(int(s.Port)))
		}
	default:
		return nil, fmt.Errorf("resolving %s: query type %s is not A or SRV", g.cfg.Host, g.cfg.QType)
	}
	slices.Sort(out)
	return out, nil
}

// Run looks the name up on the schedule from rec's time zero for d,
// recording every lookup.
func (g *GoResolver) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	var wg sync.WaitGroup
	err := caller.Schedule{T0: rec.T0(), Rate: g.cfg.Rate}.Pace(ctx, d, func(k int, due time.Time) {
		wg.Add(1)
		go func() { defer wg.Done(); rec.Add(g.lookup(ctx, rec, k, due)) }()
	})
	wg.Wait()
	return err
}

func (g *GoResolver) lookup(ctx context.Context, rec *history.Recorder, k int, due time.Time) history.Op {
	op := history.Op{Caller: g.cfg.Name, Kind: history.OpRefresh, Via: g.cfg.Server, Target: g.cfg.Host, Seq: k,
		Scheduled: rec.Offset(due), Start: rec.Offset(time.Now()), Paced: true}
	got, err := g.Resolve(ctx)
	op.End = rec.Offset(time.Now())
	op.Count, op.Value = len(got), strings.Join(got, ",")
	op.Outcome, op.ErrClass = lookupOutcome(err)
	if err != nil {
		op.Err = err.Error()
	}
	return op
}

// lookupOutcome classifies a lookup's error: a name without records is
// no instance, a timeout is unknown, any other failure (SERVFAIL, a
// refused query) is the registry's.
func lookupOutcome(err error) (history.Outcome, history.ErrClass) {
	if err == nil {
		return history.OK, ""
	}
	var de *net.DNSError
	switch {
	case errors.As(err, &de) && de.IsNotFound:
		return history.Fail, history.ErrNoInstance
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &de) && de.IsTimeout):
		return history.Unknown, history.ErrRegistry
	}
	return history.Fail, history.ErrRegistry
}
