package registry

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"sdchaos/clock"
)

// BenchmarkExpirePass times one expiry pass over N instances of which 100
// are due, by full scan and by heap pops (article 40.3). The due instances
// are re-registered between passes, outside the timing.
func BenchmarkExpirePass(b *testing.B) {
	const due = 100
	for _, s := range []Strategy{Scan, Heap} {
		for _, n := range []int{10_000, 100_000, 1_000_000} {
			var v *clock.Virtual
			var r *Registry
			b.Run(fmt.Sprintf("%s/N=%d", s, n), func(b *testing.B) {
				if r == nil { // built once per size, on first use (not when filtered out)
					v = clock.NewVirtual()
					r, _ = New(Options{Clock: v, Strategy: s, Manual: true})
					fillDue(r, n, due)
					b.ResetTimer()
				}
				b.ReportAllocs()
				for range b.N {
					b.StopTimer()
					refillDue(r, due)
					v.Advance(time.Second)
					b.StartTimer()
					if got := r.Expire(); got != due {
						b.Fatalf("pass removed %d, want %d", got, due)
					}
				}
			})
		}
	}
}

// fillDue registers n-due instances that never fall due, however many
// 1 s passes the benchmark runs; refillDue adds the due ones.
func fillDue(r *Registry, n, due int) {
	const century = 100 * 365 * 24 * time.Hour
	for i := range n - due {
		r.Register("svc", "i"+strconv.Itoa(i), "x", century)
	}
}

func refillDue(r *Registry, due int) {
	for i := range due {
		r.Register("svc", "due"+strconv.Itoa(i), "x", time.Second)
	}
}

// BenchmarkHeartbeatParallel renews 10,000 instances (ttl 20 ms, scan every
// 20 ms) from all Ps on the real clock, with the strategy's loop running; an
// instance that expired anyway registers again, as a client would.
func BenchmarkHeartbeatParallel(b *testing.B) {
	const n = 10_000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "i" + strconv.Itoa(i)
	}
	for _, s := range []Strategy{Lazy, Scan, Heap} {
		b.Run(s.String(), func(b *testing.B) {
			r, _ := New(Options{Strategy: s, ScanInterval: 20 * time.Millisecond})
			defer r.Close()
			for _, id := range ids {
				r.Register("svc", id, "x", 20*time.Millisecond)
			}
			var next atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := int(next.Add(7919))
				for pb.Next() {
					i = (i + 1) % n
					if err := r.Heartbeat(ids[i]); errors.Is(err, ErrNotFound) {
						r.Register("svc", ids[i], "x", 20*time.Millisecond)
					}
				}
			})
		})
	}
}

// BenchmarkLookupParallel looks up 100 services of 10 instances each from
// all Ps; no lease falls due during the benchmark.
func BenchmarkLookupParallel(b *testing.B) {
	const services, per = 100, 10
	names := make([]string, services)
	for i := range names {
		names[i] = "svc" + strconv.Itoa(i)
	}
	for _, s := range []Strategy{Lazy, Scan, Heap} {
		b.Run(s.String(), func(b *testing.B) {
			r, _ := New(Options{Strategy: s})
			defer r.Close()
			for i := range services * per {
				r.Register(names[i%services], "i"+strconv.Itoa(i), "x", time.Hour)
			}
			var next atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := int(next.Add(31))
				for pb.Next() {
					i = (i + 1) % services
					if got := r.Lookup(names[i]); len(got) != per {
						b.Errorf("Lookup(%s) = %d instances, want %d", names[i], len(got), per)
						return
					}
				}
			})
		})
	}
}
