package fakeservice

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/cluster"
	"sdchaos/ports"
)

// BenchmarkLeanCallCost measures what a lean registrant's calls cost the
// harness (this process's CPU time, getrusage, the etcd member excluded):
// 200 registrants on a connection each, renewing (one LeaseKeepAlive stream
// per renewal) or registering again (grant + put), 200 calls at once as a
// fleet's timers fire them, against a real one-member etcd:
//
//	go test -run '^$' -bench LeanCallCost ./fakeservice
func BenchmarkLeanCallCost(b *testing.B) {
	sup, err := childproc.NewSupervisor(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sup.Close()
	cc := cluster.DefaultConfig()
	cc.Size = 1
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := cluster.Start(ctx, sup, ports.New(12950, "--port-base"), cc)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	const n = 200
	regs := make([]*LeanRegistrant, n)
	for i := range regs {
		conn := NewH2Conn(c.Endpoints()[0])
		defer conn.Close()
		regs[i] = NewLeanRegistrant(conn, fmt.Sprintf("/svc/bench/%d", i), "v", 30*time.Second, 5*time.Second, nil)
	}
	each(regs, func(r *LeanRegistrant) error { return r.Register(ctx) })
	for _, bc := range []struct {
		name string
		call func(*LeanRegistrant) error
	}{
		{"renew", func(r *LeanRegistrant) error { return r.Renew(ctx) }},
		{"register", func(r *LeanRegistrant) error { return r.Register(ctx) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := selfCPU()
			for b.Loop() {
				if err := each(regs, bc.call); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((selfCPU()-cpu).Microseconds())/float64(b.N*n), "harness-cpu-µs/call")
		})
	}
}

// each runs f on every registrant at once and returns the first error.
func each(regs []*LeanRegistrant, f func(*LeanRegistrant) error) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(regs))
	for _, r := range regs {
		wg.Go(func() {
			if err := f(r); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
