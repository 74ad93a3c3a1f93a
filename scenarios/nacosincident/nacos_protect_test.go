package nacosincident

import (
	"testing"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/nacos"
)

// synthProtect is a nacos-protect-threshold run: 3 of 4 instances die at 10 s, the last at 70 s;
// every caller calls 20/s for 130 s; after the first crash's check (from 12 s) a call fails on
// a dead instance when k%4 < hit (0: none), and after the second every call fails, on an
// instance when dead, else for want of one; protectLogs puts the server's log lines in.
func synthProtect(t *testing.T, hit int, dead bool, protectLogs int) *history.History {
	t.Helper()
	const end = 130 * time.Second
	var ops []history.Op
	for _, n := range callerNamesOf(false) {
		for k := range int(end / (50 * time.Millisecond)) {
			at := time.Duration(k) * 50 * time.Millisecond
			op := history.Op{Caller: n, Kind: history.OpCall, Scheduled: at, Start: at, End: at + time.Millisecond, Outcome: history.OK}
			switch {
			case at >= 70*time.Second:
				op.Outcome, op.ErrClass = history.Fail, history.ErrNoInstance
				if dead {
					op.ErrClass = history.ErrInstance
				}
			case at >= 12*time.Second && k%4 < hit:
				op.Outcome, op.ErrClass = history.Fail, history.ErrInstance
			}
			ops = append(ops, op)
		}
	}
	rec := nacos.Record{Instances: 4, End: end}
	for i := range protectLogs {
		rec.ServerLog = append(rec.ServerLog, nacos.LogEvent{At: 12*time.Second + time.Duration(i)*60*time.Second,
			Kind: nacos.ProtectThreshold, Size: -1})
	}
	h := mkHistory(ops, end, ev(10*time.Second, history.CrashInstance, history.Inject, "instance-0"),
		ev(70*time.Second, history.CrashInstance, history.Inject, "instance-3"))
	if err := h.SetData(rec); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestProtectJudge(t *testing.T) {
	cases := []struct {
		name        string
		threshold   float64
		hit         int
		dead        bool
		logs        int
		wantStage1  report.Verdict
		wantStage2  report.Verdict
		wantServer1 report.Verdict
	}{
		{"threshold 0: the dead are hidden, then all handed out", 0, 0, true, 1, report.Reproduced, report.Differs, report.Outside},
		{"threshold 0.5: 3 of 4 calls hit the dead", 0.5, 3, true, 2, report.Reproduced, report.Differs, report.Reproduced},
		{"threshold 0.5 but nothing handed out", 0.5, 0, false, 0, report.Outside, report.Outside, report.Outside},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &protect{Threshold: c.threshold, Instances: 4, Crash: 3, CrashAt: 10 * time.Second, AllDeadAt: 70 * time.Second, Rate: 20}
			res := s.Judge(synthProtect(t, c.hit, c.dead, c.logs))
			got := map[string]report.Verdict{}
			for _, ch := range res.Checks {
				got[ch.Name] = ch.Verdict
			}
			if v := got["plain: failed share of its calls once the first crash settled"]; v != c.wantStage1 {
				t.Errorf("stage 1: %s, want %s", v, c.wantStage1)
			}
			if v := got["plain: share of its failures that hit a dead instance, once every instance was dead"]; v != c.wantStage2 {
				t.Errorf("stage 2: %s, want %s", v, c.wantStage2)
			}
			if v := got["server: protect threshold reached after the first crash"]; v != c.wantServer1 {
				t.Errorf("server stage 1: %s, want %s (%v)", v, c.wantServer1, got)
			}
		})
	}
}
