package nacosincident

import (
	"strings"
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios/scentest"
	"sdchaos/worlds/nacos"
)

// synthMemberRestart is a nacos-member-restart run: every caller calls 20/s for 220 s, nacos2 is
// killed at 10 s and launched again at 12 s, ready at 100 s; the survivors hold 6 publishers
// from 12 s until expiredAt. shrink, when set, makes plain's listener report 0 instances at
// 15 s, its calls fail "no instance" from then to 20 s, and nacos1 push DataSize 0.
func synthMemberRestart(t *testing.T, expiredAt time.Duration, shrink bool) *history.History {
	t.Helper()
	return synthMemberRestartUntil(t, 220*time.Second, expiredAt, shrink)
}

// synthMemberRestartUntil is synthMemberRestart with the run ending at end.
func synthMemberRestartUntil(t *testing.T, end, expiredAt time.Duration, shrink bool) *history.History {
	t.Helper()
	var ops []history.Op
	for _, n := range callerNamesOf(false) {
		ops = append(ops, history.Op{Caller: history.ClientLabel(n), Kind: history.OpStart, Outcome: history.OK, Start: -time.Second},
			history.Op{Caller: history.ClientLabel(n), Kind: history.OpNotify, Outcome: history.OK, Start: -time.Second, Count: 3})
		for k := range int(end / (50 * time.Millisecond)) {
			at := time.Duration(k) * 50 * time.Millisecond
			op := history.Op{Caller: n, Kind: history.OpCall, Scheduled: at, Start: at, End: at + time.Millisecond, Outcome: history.OK}
			if shrink && n == "plain" && at >= 15*time.Second && at < 20*time.Second {
				op.Outcome, op.ErrClass = history.Fail, history.ErrNoInstance
			}
			ops = append(ops, op)
		}
	}
	if shrink {
		ops = append(ops, history.Op{Caller: history.ClientLabel("plain"), Kind: history.OpNotify, Outcome: history.OK, Start: 15 * time.Second},
			history.Op{Caller: history.ClientLabel("plain"), Kind: history.OpNotify, Outcome: history.OK, Start: 20 * time.Second, Count: 3})
	}
	rec := nacos.Record{Instances: 3, ServerStart: min(150*time.Second, end/2), End: end, MembersCPU: []time.Duration{24 * time.Second}}
	for _, name := range memberNames {
		r := nacos.MemberRecord{Name: name}
		for at := time.Duration(0); at < end; at += 200 * time.Millisecond {
			n := 3
			if at >= 12*time.Second && at < expiredAt {
				n = 6
			}
			r.Publishers = append(r.Publishers, nacos.PublisherSample{At: at, Clients: n, Distinct: 3})
		}
		if name == "nacos2" {
			r.Restarts = []nacos.MemberStart{{Launched: 12 * time.Second, Ready: min(100*time.Second, end-minServed)}}
		}
		if shrink && name == "nacos1" {
			r.Log = []nacos.LogEvent{{At: 14500 * time.Millisecond, Kind: nacos.PushOK, Size: 0}}
		}
		rec.Members = append(rec.Members, r)
	}
	for i := range 3 {
		rec.Owners = append(rec.Owners, nacos.OwnerRecord{Client: "c", Port: 10160 + i, Member: "nacos2"})
	}
	h := mkHistory(ops, end, ev(10*time.Second, history.KillMembers, history.Inject, "nacos2"),
		ev(12*time.Second, history.KillMembers, history.Heal, "nacos2"))
	if err := h.SetData(rec); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestMemberRestartJudge(t *testing.T) {
	cases := []struct {
		name      string
		expiredAt time.Duration
		shrink    bool
		want      map[string]report.Verdict
	}{
		{"nothing shrinks, the copies expire at 3 min", 10*time.Second + 180*time.Second, false, map[string]report.Verdict{
			"any member pushed fewer than every instance after the kill":                               report.Differs,
			"plain: fewest instances its client's listener held after the kill":                        report.Differs,
			"plain-protect: fewest instances its client's listener held after the kill":                report.Reproduced,
			"plain: calls failed for want of an instance or of the registry, from the kill to the end": report.Reproduced,
			"survivors: the killed member's instance clients dropped, after the kill":                  report.Reproduced,
		}},
		{"an empty push and a shrunken list (#10209), copies expire early", 10*time.Second + 60*time.Second, true, map[string]report.Verdict{
			"any member pushed fewer than every instance after the kill":                               report.Outside,
			"plain: fewest instances its client's listener held after the kill":                        report.Outside,
			"plain: calls failed for want of an instance or of the registry, from the kill to the end": report.Outside,
			"survivors: the killed member's instance clients dropped, after the kill":                  report.Outside,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &memberRestart{Member: "nacos2", RestartAt: 10 * time.Second, Down: 2 * time.Second, Instances: 3, Rate: 20}
			res := s.Judge(synthMemberRestart(t, c.expiredAt, c.shrink))
			got := map[string]report.Verdict{}
			for _, ch := range res.Checks {
				got[ch.Name] = ch.Verdict
			}
			for name, want := range c.want {
				if got[name] != want {
					t.Errorf("%s: %s, want %s (checks %v)", name, got[name], want, got)
				}
			}
			for _, g := range res.Gates {
				if !g.OK && g.Name != "every caller ran to the end" {
					t.Errorf("gate %q failed: %s", g.Name, g.Measured)
				}
			}
		})
	}
}

// TestMemberRestartShortRunLeavesTheExpiryUnjudged: a run that ends before the survivors' expiry
// bound with the copies still held says so in its conclusion and judges the rest; one that ran
// past the bound with the copies held cannot judge it (invalid, as before).
func TestMemberRestartShortRunLeavesTheExpiryUnjudged(t *testing.T) {
	s := &memberRestart{Member: "nacos2", RestartAt: 10 * time.Second, Down: 2 * time.Second, Instances: 3, Rate: 20}
	res := s.Judge(synthMemberRestartUntil(t, 75*time.Second, time.Hour, false))
	if res.Verdict == report.Invalid {
		t.Fatalf("a 75 s run is invalid: %s", scentest.InvalidWhy(res))
	}
	for _, c := range res.Checks {
		if c.Name == "survivors: the killed member's instance clients dropped, after the kill" {
			t.Errorf("the expiry was judged in a 75 s run: %s %s", c.MeasuredText, c.Verdict)
		}
	}
	if !strings.Contains(strings.Join(res.Conclusion, " "), "not judged (a --duration of at least --restart-at + 3m6s judges it)") {
		t.Errorf("the conclusion does not say the expiry is not judged: %q", res.Conclusion)
	}
	if res := s.Judge(synthMemberRestartUntil(t, 220*time.Second, time.Hour, false)); scentest.Verdict(res,
		"survivors: the killed member's instance clients dropped, after the kill") != report.Invalid {
		t.Errorf("copies held past the bound in a 220 s run: %s, want invalid", res.Verdict)
	}
}

func TestMemberRestartAndProtectValidation(t *testing.T) {
	scentest.CheckValidation(t, []scentest.ValidationCase{
		{Scenario: "nacos-member-restart", Args: nil, WantErr: ""},
		{Scenario: "nacos-member-restart", Args: []string{"--member", "nacos4"}, WantErr: "--member \"nacos4\""},
		{Scenario: "nacos-member-restart", Args: []string{"--restart-at", "1s"}, WantErr: "--restart-at (1s)"},
		{Scenario: "nacos-member-restart", Args: []string{"--down", "0s"}, WantErr: "--down (0s)"},
		{Scenario: "nacos-member-restart", Args: []string{"--duration", "20s"}, WantErr: "--duration (20s)"},
		{Scenario: "nacos-protect-threshold", Args: nil, WantErr: ""},
		{Scenario: "nacos-protect-threshold", Args: []string{"--threshold", "1.5"}, WantErr: "--threshold (1.5)"},
		{Scenario: "nacos-protect-threshold", Args: []string{"--crash", "4"}, WantErr: "--crash (4)"},
		{Scenario: "nacos-protect-threshold", Args: []string{"--all-dead-at", "30s"}, WantErr: "--all-dead-at (30s)"},
		{Scenario: "nacos-storm", Args: []string{"--cpu-limit", "0.01"}, WantErr: "--cpu-limit (0.01)"},
	})
}
