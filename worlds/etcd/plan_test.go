package etcd

import (
	"context"
	"errors"
	"testing"
	"time"

	"sdchaos/caller"
	"sdchaos/fault"
	"sdchaos/history"
	"sdchaos/rig"
)

func TestPlanValidate(t *testing.T) {
	tl := func(context.Context, *Etcd) (fault.Timeline, error) { return nil, nil }
	tests := []struct {
		name string
		plan Plan
		ok   bool
	}{
		{"callers", Plan{Callers: []caller.Config{{Name: "keep", Rate: 40}}, Timeline: tl}, true},
		{"key-value traffic only", Plan{KV: &KVPlan{Timeout: time.Second}, Timeline: tl}, true},
		{"a fleet only", Plan{Fleet: nopFleet{}, Timeline: tl}, true},
		{"no traffic at all", Plan{Timeline: tl}, false},
		{"no timeline", Plan{Callers: []caller.Config{{Name: "keep", Rate: 40}}}, false},
	}
	for _, tc := range tests {
		err := tc.plan.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v", tc.name, err)
		}
	}
	if err := (Plan{Timeline: tl}).Validate(); !errors.Is(err, ErrNoTraffic) {
		t.Errorf("a plan without traffic: %v, want ErrNoTraffic", err)
	}
}

// TestRunPlanRefusesAPlanWithoutTraffic: an error before anything starts,
// not a panic on the first caller's rate.
func TestRunPlanRefusesAPlanWithoutTraffic(t *testing.T) {
	env := rig.NewEnv(1, time.Second, 9150, false, nil, nil)
	defer env.Close()
	_, err := RunPlan(context.Background(), env, EtcdOptions{}, Plan{
		Timeline: func(context.Context, *Etcd) (fault.Timeline, error) { return nil, nil }})
	if !errors.Is(err, ErrNoTraffic) {
		t.Errorf("RunPlan without traffic: %v", err)
	}
}

// nopFleet is a fleet that does nothing.
type nopFleet struct{}

func (nopFleet) Start(context.Context, *Etcd) error              { return nil }
func (nopFleet) Settle(context.Context, *history.Recorder) error { return nil }
func (nopFleet) Stop()                                           {}

// TestRunPlanRefusesARemotePlanWithoutAFleet: a rig on another process's
// members cannot check that it is ready, nor name the members for the
// key-value traffic.
func TestRunPlanRefusesARemotePlanWithoutAFleet(t *testing.T) {
	env := rig.NewEnv(1, time.Second, 9150, false, nil, nil)
	defer env.Close()
	tl := func(context.Context, *Etcd) (fault.Timeline, error) { return nil, nil }
	o := EtcdOptions{Remote: []string{"http://127.0.0.1:9150"}}
	for name, plan := range map[string]Plan{
		"callers only":           {Callers: []caller.Config{{Name: "keep", Rate: 40}}, Timeline: tl},
		"a fleet and key-values": {Fleet: nopFleet{}, KV: &KVPlan{Timeout: time.Second}, Timeline: tl},
	} {
		if _, err := RunPlan(context.Background(), env, o, plan); !errors.Is(err, ErrRemotePlan) {
			t.Errorf("%s: RunPlan on remote members: %v, want ErrRemotePlan", name, err)
		}
	}
}
