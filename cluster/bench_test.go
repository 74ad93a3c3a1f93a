package cluster

import (
	"context"
	"sort"
	"testing"
	"time"

	"sdchaos/childproc"
	"sdchaos/ports"
)

// BenchmarkStartToHealthy measures starting 3 member processes until a leader
// is elected and every member answers. Run with -benchtime=5x; it reports
// the median and the maximum besides the mean.
func BenchmarkStartToHealthy(b *testing.B) {
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		sup, err := childproc.NewSupervisor(nil)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		_, err = Start(context.Background(), sup, ports.New(testPortBase+40, "--port-base"), DefaultConfig())
		ds = append(ds, time.Since(start))
		b.StopTimer()
		sup.Close()
		b.StartTimer()
		if err != nil {
			b.Fatal(err)
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Milliseconds()), "median-ms")
	b.ReportMetric(float64(ds[len(ds)-1].Milliseconds()), "max-ms")
}
