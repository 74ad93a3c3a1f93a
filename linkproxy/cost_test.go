package linkproxy

import (
	"bufio"
	"net"
	"runtime"
	"testing"
	"time"
)

// costLinks is how many idle links BenchmarkIdleLinkCost holds open: the
// reregistration storm holds one per registrant, thousands of them.
const costLinks = 2000

// BenchmarkIdleLinkCost measures what one idle proxied link costs the
// harness after a round trip: heap and goroutine stacks (B/link) and
// goroutines (goroutines/link), the proxy's share only — the same count of
// direct connections to the same echo server is the baseline subtracted.
func BenchmarkIdleLinkCost(b *testing.B) {
	for range b.N {
		p := newProxy(b)
		direct := openIdle(b, p.Target())
		proxied := openIdle(b, p.Addr())
		b.ReportMetric((proxied.bytes-direct.bytes)/costLinks, "B/link")
		b.ReportMetric((proxied.goroutines-direct.goroutines)/costLinks, "goroutines/link")
		_ = p.Close()
	}
}

// idleCost is the process's heap in use plus stacks, and its goroutines,
// while costLinks connections to addr are open and idle.
type idleCost struct{ bytes, goroutines float64 }

// openIdle opens costLinks connections to addr, makes one round trip on
// each, measures, and closes them.
func openIdle(b *testing.B, addr string) idleCost {
	b.Helper()
	conns := make([]net.Conn, 0, costLinks)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
		time.Sleep(100 * time.Millisecond) // the links' goroutines end
	}()
	before := memNow()
	for range costLinks {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := roundTrip(c, bufio.NewReader(c), "x", 2*time.Second); err != nil {
			b.Fatal(err)
		}
	}
	after := memNow()
	return idleCost{bytes: after.bytes - before.bytes, goroutines: after.goroutines - before.goroutines}
}

func memNow() idleCost {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return idleCost{bytes: float64(m.HeapInuse + m.StackInuse), goroutines: float64(runtime.NumGoroutine())}
}
