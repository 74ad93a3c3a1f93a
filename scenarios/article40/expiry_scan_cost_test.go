//go:build sdchaos_unconverted

package scenarios

import (
	"context"
	"slices"
	"testing"
)

func TestExpiryScanCostSmall(t *testing.T) {
	c := &expiryScanCostConfig{Sizes: IntList{1000, 100_000}, Due: 10, Passes: 5}
	res, err := c.Run(context.Background(), NewEnv(Common{Seed: 1}, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics
	for _, k := range []string{"scan_removed@1000", "heap_removed@1000", "scan_removed@100000", "heap_removed@100000"} {
		if m[k] != 10 {
			t.Errorf("%s = %v, want exactly 10", k, m[k])
		}
	}
	if m["scan_ms@100000"] <= m["scan_ms@1000"] {
		t.Errorf("scan did not grow with N: %v ms at 1000, %v ms at 100000", m["scan_ms@1000"], m["scan_ms@100000"])
	}
	if m["heap_ms@100000"] >= m["scan_ms@100000"]/2 {
		t.Errorf("heap %v ms not well below scan %v ms at N=100000", m["heap_ms@100000"], m["scan_ms@100000"])
	}
}

func TestExpiryScanCostJudge(t *testing.T) {
	c := defaultExpiryScanCost()
	cases := []struct {
		name       string
		scan, heap []passCost
		failed     []string
	}{
		{"article figures pass",
			[]passCost{{0.25, 100}, {2.58, 100}, {25.58, 100}}, []passCost{{0.156, 100}, {0.385, 100}, {0.822, 100}}, nil},
		{"a wrong removal count fails",
			[]passCost{{0.25, 100}, {2.58, 99}, {25.58, 100}}, []passCost{{0.156, 100}, {0.385, 100}, {0.822, 101}},
			[]string{"scan_removed@100000", "heap_removed@1000000"}},
		{"a flat scan fails the growth check",
			[]passCost{{1, 100}, {2, 100}, {20, 100}}, []passCost{{0.1, 100}, {0.1, 100}, {0.1, 100}},
			[]string{"scan growth N=1000000 / N=10000"}},
		{"a heap as slow as the scan fails",
			[]passCost{{0.25, 100}, {2.58, 100}, {25.58, 100}}, []passCost{{0.2, 100}, {2, 100}, {20, 100}},
			[]string{"heap / scan at N=1000000"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := c.judge(tc.scan, tc.heap)
			if failed := failedNames(res); !slices.Equal(failed, tc.failed) {
				t.Fatalf("failed checks %q, want %q", failed, tc.failed)
			}
		})
	}
}

func TestFmtThousands(t *testing.T) {
	for n, want := range map[int]string{7: "7", 1000: "1,000", 10000: "10,000", 1000000: "1,000,000"} {
		if got := fmtThousands(n); got != want {
			t.Errorf("fmtThousands(%d) = %q, want %q", n, got, want)
		}
	}
}
