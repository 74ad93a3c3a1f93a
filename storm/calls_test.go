package storm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sdchaos/history"
	"sdchaos/report"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const ms = time.Millisecond

func TestBuckets(t *testing.T) {
	recs := []Record{
		{Start: 0, End: 250 * ms},
		{Start: 10 * ms, End: 20 * ms},
		{Start: 50 * ms, End: 60 * ms},
		{Start: 120 * ms, End: 130 * ms},
		{Start: 350 * ms, End: 360 * ms},
	}
	started, inflight := Buckets(recs, 100*ms, 4)
	wantS, wantI := []int{3, 1, 0, 1}, []int{2, 2, 1, 1}
	for i := range wantS {
		if started[i] != wantS[i] || inflight[i] != wantI[i] {
			t.Fatalf("started %v inflight %v, want %v %v", started, inflight, wantS, wantI)
		}
	}
}

func TestSummarize(t *testing.T) {
	var recs []Record
	for i := 1; i <= 100; i++ {
		o := history.OK
		if i == 100 {
			o = history.Unknown
		} else if i == 99 {
			o = history.Fail
		}
		recs = append(recs, Record{Start: 0, End: time.Duration(i) * ms, Outcome: o})
	}
	s := Summarize(recs)
	if s.Calls != 100 || s.Errors != 2 || s.Timeouts != 1 || s.P50ms != 50 || s.P99ms != 99 {
		t.Fatalf("%+v", s)
	}
}

func TestBackoffs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	if d := (Immediate{}).Delay(0, r); d != 0 {
		t.Errorf("immediate first delay %s", d)
	}
	if d := (Immediate{}).Delay(80, r); d != 5*time.Second {
		t.Errorf("immediate capped delay %s, want 5s", d)
	}
	f := FullJitter{Base: time.Second, Cap: 10 * time.Second}
	tests := []struct {
		k   int
		max time.Duration
	}{{0, time.Second}, {1, 2 * time.Second}, {3, 8 * time.Second}, {4, 10 * time.Second}, {60, 10 * time.Second}}
	for _, tc := range tests {
		var hi time.Duration
		for i := 0; i < 2000; i++ {
			d := f.Delay(tc.k, r)
			if d < 0 || d >= tc.max {
				t.Fatalf("attempt %d: delay %s outside [0, %s)", tc.k, d, tc.max)
			}
			hi = max(hi, d)
		}
		if hi < tc.max*9/10 {
			t.Errorf("attempt %d: delays do not spread over the window (max %s of %s)", tc.k, hi, tc.max)
		}
	}
}

// TestErrKind names registry errors as the registrants' table tallies them.
func TestErrKind(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("granting lease: %w", context.DeadlineExceeded), "timeout"},
		{fmt.Errorf("putting k: %w", status.Error(codes.Unavailable, "read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer")), "connection reset"},
		{status.Error(codes.ResourceExhausted, "too many requests"), "ResourceExhausted"},
		{errors.New("something else"), "other"},
		{status.Error(codes.Unavailable, "dial tcp 127.0.0.1:2379: i/o timeout"), "Unavailable: dial tcp #: i/o timeout"},
	}
	for _, tc := range tests {
		if got := ErrKind(tc.err); got != tc.want {
			t.Errorf("ErrKind(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	s := Summarize([]Record{{Outcome: history.OK}, {Outcome: history.Unknown, Kind: "timeout"}, {Outcome: history.Fail, Kind: "EOF"}, {Outcome: history.Fail, Kind: "EOF"}})
	if s.Errors != 3 || s.Timeouts != 1 || s.ErrKinds["EOF"] != 2 || s.ErrKinds["timeout"] != 1 {
		t.Errorf("summary %+v", s)
	}
}

func TestNearestRankIsReportsPercentile(t *testing.T) {
	for _, xs := range [][]float64{{1}, {2, 1}, {3, 1, 2}, {5, 1, 4, 2, 3, 9, 7, 8, 6, 10}, {1, 1, 1, 2}} {
		for _, p := range []float64{0.5, 0.99} {
			want := report.Percentile(xs, 100*p)
			if got := nearestRank(append([]float64(nil), xs...), p); got != want {
				t.Errorf("nearestRank(%v, %g) = %g, report.Percentile gives %g", xs, p, got, want)
			}
		}
	}
}
