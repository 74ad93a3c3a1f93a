package eurekaarticle

import (
	"strings"
	"testing"
	"time"

	"sdchaos/figure/figuretest"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/zookeeper"
)

// cpCase is a synthetic zookeeper-cp run: the leader zk3 killed at 10 s and
// started again at 40 s; zk1 and zk2 refuse from 10.2 s for refuse[i].
type cpCase struct {
	fault  cpFault
	refuse [2]time.Duration // zk1's and zk2's refusal (0: none)
	failed map[string][2]time.Duration
	lost   bool
}

const cpFaultAt, cpHealAt, cpEnd = 10 * time.Second, 40 * time.Second, 60 * time.Second

func cpHistory(t *testing.T, c cpCase) *history.History {
	data := cpData{Fault: c.fault, Victim: "zk3", Members: []string{"zk1", "zk2", "zk3"}, TickTime: 2 * time.Second, InitLimit: 10, SyncLimit: 5,
		Session: 20 * time.Second, Memory: zookeeper.Memory{JVMs: map[string]int64{"zk1": 70}}}
	refusing := func(member string, at time.Duration) bool {
		switch member {
		case "zk3":
			return c.fault == cpKillLeader && at >= cpFaultAt && at < cpHealAt+5*time.Second
		case "zk1", "zk2":
			d := c.refuse[map[string]int{"zk1": 0, "zk2": 1}[member]]
			return d > 0 && at >= cpFaultAt+200*time.Millisecond && at < cpFaultAt+200*time.Millisecond+d
		}
		return false
	}
	var ops []history.Op
	for _, m := range data.Members {
		for _, op := range cpOps {
			for at := time.Duration(0); at < cpEnd; at += cpEvery[op] {
				o := history.Op{Caller: "probe/" + m + "/" + string(op), Kind: history.OpProbe, Via: m, Target: string(op),
					Scheduled: at, Start: at, End: at + 10*time.Millisecond, Outcome: history.OK}
				if refusing(m, at) {
					o.Outcome = history.Fail
				}
				ops = append(ops, o)
			}
		}
	}
	for _, name := range cpCallers {
		span := c.failed[name]
		for k, at := 0, time.Duration(0); at < cpEnd; k, at = k+1, at+25*time.Millisecond {
			o := history.Op{Caller: name, Kind: history.OpCall, Seq: k, Scheduled: at, Start: at, End: at + time.Millisecond, Outcome: history.OK, Paced: true}
			if at >= span[0] && at < span[1] {
				o.Outcome = history.Fail
			}
			ops = append(ops, o)
		}
	}
	state := func(at time.Duration, s zookeeper.ConnState) history.Op {
		return history.Op{Caller: cpCurator + zookeeper.StateSuffix, Kind: history.OpState, Target: string(zookeeper.EventConnection), Value: string(s),
			Scheduled: at, Start: at, End: at, Outcome: history.OK}
	}
	ops = append(ops, state(10100*time.Millisecond, zookeeper.Suspended), state(11400*time.Millisecond, zookeeper.Reconnected))
	if c.lost {
		ops = append(ops, state(11*time.Second, zookeeper.Lost))
	}
	kill := history.Event{At: cpFaultAt, Kind: history.KillMembers, Phase: history.Inject, Targets: []string{"zk3"}, Label: "SIGKILL zookeeper zk3"}
	if c.fault != cpKillLeader {
		kill.Kind, kill.Label = history.PartitionMember, "cut zookeeper zk3 off from its peers"
	}
	heal := kill
	heal.At, heal.Phase = cpHealAt, history.Heal
	return synth(t, cpEnd, data, ops, kill, heal)
}

func cpConfig(f cpFault) *zkCP {
	return &zkCP{Fault: f, FaultAt: cpFaultAt, For: cpHealAt - cpFaultAt, Rate: 40, Instances: 3, Fetch: 30 * time.Second}
}

// clearFails is the clear caller's failures while no member served.
var clearFails = map[string][2]time.Duration{cpClear: {10500 * time.Millisecond, 12 * time.Second}}

// TestZooKeeperCPJudge: the article's "ZooKeeper briefly refuses reads and
// writes" is reproduced by every survivor of the leader's kill; "every
// service gets stuck" differs for the callers that serve from their own
// copy, with the measured cause; each check breaks when its effect is
// absent.
func TestZooKeeperCPJudge(t *testing.T) {
	good := cpCase{fault: cpKillLeader, refuse: [2]time.Duration{2 * time.Second, 2500 * time.Millisecond}, failed: clearFails}
	res := judgeWant(t, cpConfig(cpKillLeader), cpHistory(t, good), report.Differs, "zk1: refused requests after losing its leader (its own state)", report.Reproduced)
	for _, want := range []struct {
		check string
		v     report.Verdict
	}{
		{"zk2: not serving for", report.Reproduced},
		{"curator-servicecache: calls failed while ZooKeeper refused (stuck)", report.Differs},
		{"keep: calls failed while ZooKeeper refused (stuck)", report.Differs},
		{"clear: calls failed while ZooKeeper refused (stuck)", report.Reproduced},
		{"curator-servicecache: went LOST", report.Reproduced},
	} {
		if v := verdictOf(res, want.check); v != want.v {
			t.Errorf("%s: %s, want %s", want.check, v, want.v)
		}
	}
	mustFail := []struct {
		name, check string
		c           cpCase
	}{
		{"a survivor that never refused", "zk1: refused requests after losing its leader (its own state)",
			cpCase{fault: cpKillLeader, refuse: [2]time.Duration{0, 2 * time.Second}, failed: clearFails}},
		{"an election beyond initLimit", "zk2: not serving for", cpCase{fault: cpKillLeader, refuse: [2]time.Duration{2 * time.Second, 25 * time.Second}, failed: clearFails}},
		{"a Curator cache that emptied", "curator-servicecache: calls failed while ZooKeeper refused (stuck)",
			cpCase{fault: cpKillLeader, refuse: [2]time.Duration{2 * time.Second, 2 * time.Second},
				failed: map[string][2]time.Duration{cpCurator: {10500 * time.Millisecond, 12 * time.Second}}}},
		{"a keep caller that failed", "keep: calls failed while ZooKeeper refused (stuck)",
			cpCase{fault: cpKillLeader, refuse: [2]time.Duration{2 * time.Second, 2 * time.Second},
				failed: map[string][2]time.Duration{cpKeep: {11 * time.Second, 11500 * time.Millisecond}}}},
		{"LOST without a session timeout's refusal", "curator-servicecache: went LOST",
			cpCase{fault: cpKillLeader, refuse: [2]time.Duration{2 * time.Second, 2 * time.Second}, failed: clearFails, lost: true}},
		{"a majority that refused while a follower was cut", "zk1: stopped serving while a follower was cut off",
			cpCase{fault: cpCutFollower, refuse: [2]time.Duration{3 * time.Second, 0}}},
	}
	for _, tt := range mustFail {
		t.Run(tt.name, func(t *testing.T) {
			judgeWant(t, cpConfig(tt.c.fault), cpHistory(t, tt.c), report.Outside, tt.check, report.Outside)
		})
	}
}

// verdictOf is a check's verdict ("" when absent).
func verdictOf(res *report.Result, name string) report.Verdict {
	for _, c := range res.Checks {
		if c.Name == name {
			return c.Verdict
		}
	}
	return ""
}

// TestZooKeeperCPPlotZoomsOnTheRefusal: the survivors' refusal of a
// second or two is a few pixels on the run's axis; the figure draws their asks
// again in a panel zoomed to it, the span no survivor served shaded and
// each survivor's time not serving in its title.
func TestZooKeeperCPPlotZoomsOnTheRefusal(t *testing.T) {
	good := cpCase{fault: cpKillLeader, refuse: [2]time.Duration{2 * time.Second, 2500 * time.Millisecond}, failed: clearFails}
	plots, err := cpConfig(cpKillLeader).Plots(cpHistory(t, good))
	if err != nil {
		t.Fatal(err)
	}
	d := figuretest.One(t, figuretest.Render(t, plots), "zookeeper-cp")
	if len(plots[0].Panels) != 3 {
		t.Fatalf("%d panels, want the run's asks, the zoom and the failed calls", len(plots[0].Panels))
	}
	title := plots[0].Panels[1].Title.Text
	if !strings.HasPrefix(title, "Zoomed to ") || !strings.Contains(title, "zk1 not serving 2.0 s") {
		t.Errorf("the zoomed panel's title %q does not say how long the survivors were not serving", title)
	}
	d.Has(t, "no survivor serving (srvr): 2.0 s")
}
