package caller

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"sdchaos/clock"
	"sdchaos/history"
	"sdchaos/linearize"
)

func TestKVConfigValidate(t *testing.T) {
	ms := KVMembers([]string{"n1", "n2"}, []string{"http://127.0.0.1:1", "http://127.0.0.1:2"})
	tests := []struct {
		cfg  KVConfig
		want string
	}{
		{DefaultKVConfig(ms, time.Second), ""},
		{DefaultKVConfig(nil, time.Second), "needs members (0)"},
		{KVConfig{Members: ms, Keys: DefaultKVKeys, Rate: 0, Timeout: time.Second}, "rate (0)"},
		{KVConfig{Members: ms, Keys: DefaultKVKeys, Rate: 3}, "timeout (0s)"},
	}
	for _, tc := range tests {
		err := tc.cfg.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

func TestKVPlanCyclesKindsAndSpreadsKeys(t *testing.T) {
	kv := &KV{cfg: DefaultKVConfig(KVMembers([]string{"n1", "n2", "n3"}, []string{"a", "b", "c"}), time.Second)}
	tests := []struct {
		m, k       int
		kind       linearize.Kind
		key, value string
	}{
		{0, 0, linearize.Put, "/kv/a", "n1-0"},
		{0, 1, linearize.Get, "/kv/a", ""},
		{0, 2, linearize.SerGet, "/kv/a", ""},
		{0, 3, linearize.Put, "/kv/b", "n1-3"},
		{1, 0, linearize.Put, "/kv/b", "n2-0"},
		{2, 8, linearize.SerGet, "/kv/b", ""},
	}
	for _, tc := range tests {
		kind, key, value := kv.plan(tc.m, tc.k)
		if kind != tc.kind || key != tc.key || value != tc.value {
			t.Errorf("plan(%d, %d) = %s %s %q, want %s %s %q", tc.m, tc.k, kind, key, value, tc.kind, tc.key, tc.value)
		}
	}
}

// refused returns an endpoint on loopback where nothing listens.
func refused(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// TestKVRecordsEveryOpAgainstADeadMember runs the traffic for real against
// an endpoint that refuses connections: every op is recorded, paced, named
// as the checker reads it, a put keeps the value it tried to write, none
// succeeds, and Stop ends the sending early: the ops sent are those the
// schedule (20/s from time zero) puts before the instant Stop was called,
// give or take one late wake-up (clock.SchedSlack) of the pacer or of the
// call to Stop.
func TestKVRecordsEveryOpAgainstADeadMember(t *testing.T) {
	cfg := DefaultKVConfig(KVMembers([]string{"n1"}, []string{refused(t)}), 150*time.Millisecond)
	cfg.Rate = 20
	kv, err := NewKV(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	rec := history.NewRecorder(time.Now().Add(20 * time.Millisecond))
	var stopAt time.Time
	err = kv.During(context.Background(), rec, 10*time.Second, 200*time.Millisecond, func() error {
		time.Sleep(520 * time.Millisecond)
		stopAt = time.Now()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	kvs := linearize.FromOps(rec.Ops())
	sent := 0
	for _, x := range kvs {
		if x.Member == linearize.Final {
			continue
		}
		sent++
		if x.Acked() || (x.Kind == linearize.Put && !strings.HasPrefix(x.Value, "n1-")) || x.Return-x.Call > time.Second {
			t.Errorf("op %+v: want a failed op, a put with its value, ended by its deadline", x)
		}
	}
	sched, until := Schedule{T0: rec.T0(), Rate: cfg.Rate}, stopAt.Sub(rec.T0())
	if lo, hi := sched.Count(until-clock.SchedSlack), sched.Count(until+clock.SchedSlack); sent < lo || sent > hi {
		t.Errorf("%d ops at %g/s until Stop %s after time zero, want %d–%d", sent, cfg.Rate, until, lo, hi)
	}
	finals := history.Filter(rec.Ops(), linearize.CallerName(linearize.Final, linearize.Get))
	if len(finals) != len(DefaultKVKeys) {
		t.Errorf("%d reads after healing recorded, want one per key (%d)", len(finals), len(DefaultKVKeys))
	}
	for _, op := range rec.Ops() {
		if strings.HasPrefix(op.Caller, "kv/n1/") && !op.Paced {
			t.Errorf("op %s not marked paced", op.Caller)
		}
	}
}
