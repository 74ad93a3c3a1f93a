package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/scenarios"
)

func TestDedupEventsKeepsEachScheduledEventOnce(t *testing.T) {
	ev := func(at time.Duration, p history.Phase) history.Event {
		return history.Event{At: at, Kind: history.BlackholeLinks, Phase: p, Label: "blackhole client links to 3 etcd members"}
	}
	in := history.Events{ev(10*time.Second, history.Inject), ev(10*time.Second+3*time.Millisecond, history.Inject),
		ev(15*time.Second, history.Heal), ev(15*time.Second+time.Millisecond, history.Heal), ev(40*time.Second, history.Inject)}
	got := dedupEvents(in)
	if len(got) != 3 || got[0].At != 10*time.Second || got[1].At != 15*time.Second || got[2].At != 40*time.Second {
		t.Fatalf("dedup = %+v", got)
	}
}

// writeShardHistory saves a history with the given args into a new dir.
func writeShardHistory(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	fh, err := os.Create(filepath.Join(dir, "reregistration-storm"+historySuffix))
	if err != nil {
		t.Fatal(err)
	}
	h := &history.History{Data: json.RawMessage(`{"t0_unix_ns":1,"settle_ns":1,"phases":[]}`)}
	if err := history.WriteHistory(fh, history.HistoryHeader{Scenario: "reregistration-storm", Args: args, Seed: 1}, h); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	return dir
}

func TestMergeRefusesWhatIsNotOneShardedRun(t *testing.T) {
	s0 := writeShardHistory(t, "--instances=100", "--shard=0/2")
	s1 := writeShardHistory(t, "--instances=100", "--shard=1/2", "--shard-endpoints=http://127.0.0.1:12000")
	other := writeShardHistory(t, "--instances=200", "--shard=1/2")
	whole := writeShardHistory(t, "--instances=100", "--shard=0/1")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{s0}, "at least two shard directories"},
		{[]string{s0, whole}, "was not recorded by a shard"},
		{[]string{s0, other}, "ran with other arguments"},
		{[]string{s0, s0}, "want shards 0/2 … 1/2 each once"},
		{[]string{s0, t.TempDir()}, "holds 0 saved histories"},
		{[]string{"--format", "xml", s0, s1}, "--format"},
	}
	for _, tc := range tests {
		err := merge(tc.args, &strings.Builder{})
		if !errors.Is(err, scenarios.ErrUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("merge %v = %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
	if _, err := readShards([]string{s1, s0}); err != nil {
		t.Errorf("two shards of one run: %v", err)
	}
}
