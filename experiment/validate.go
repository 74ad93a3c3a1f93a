package experiment

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// MaxInstances and MaxRate bound what one experiment may ask of the
// machine (a storm beyond them is reregistration-storm's, sharded).
const (
	MaxInstances = 2000
	MaxRate      = 1000
)

// nameRE is what a name may be: it becomes a file name.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Validate reports the first field out of place, naming its path and
// quoting its value.
func (x Experiment) Validate() error {
	switch {
	case !nameRE.MatchString(x.Name):
		return fmt.Errorf("name: want lower-case letters, digits and dashes (it names the files), got %q", x.Name)
	case strings.TrimSpace(x.Summary) == "":
		return errors.New("summary: say in one line what the experiment shows")
	case x.Registry != "" && !nameRE.MatchString(string(x.Registry)):
		return fmt.Errorf("registry: want a world's name (lower-case letters, digits and dashes: experiments registries lists them), got %q", x.Registry)
	case x.Duration <= 0:
		return fmt.Errorf("duration: want a positive duration, got %s", x.Duration)
	}
	if err := x.Instances.validate(); err != nil {
		return err
	}
	if err := x.validateCallers(); err != nil {
		return err
	}
	if len(x.Timeline) == 0 {
		return errors.New("timeline: want at least one fault or probe step")
	}
	for i, s := range x.Timeline {
		if err := s.validate(x.Duration); err != nil {
			return fmt.Errorf("timeline[%d].%w", i, err)
		}
	}
	for i, c := range x.Checks {
		if strings.TrimSpace(c) == "" {
			return fmt.Errorf("checks[%d]: empty check name", i)
		}
	}
	return nil
}

func (in Instances) validate() error {
	switch {
	case in.Count < 1 || in.Count > MaxInstances:
		return fmt.Errorf("instances.count: want 1–%d, got %d", MaxInstances, in.Count)
	case in.TTL < 0:
		return fmt.Errorf("instances.ttl: want a duration ≥ 0, got %s", in.TTL)
	case in.Spread < 0:
		return fmt.Errorf("instances.spread: want a duration ≥ 0, got %s", in.Spread)
	}
	return nil
}

func (x Experiment) validateCallers() error {
	seen := map[string]bool{}
	for i, c := range x.Callers {
		if err := c.validate(); err != nil {
			return fmt.Errorf("callers[%d].%w", i, err)
		}
		if seen[c.Name] {
			return fmt.Errorf("callers[%d].name: %q is used twice", i, c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

func (c Caller) validate() error {
	switch {
	case !nameRE.MatchString(c.Name):
		return fmt.Errorf("name: want lower-case letters, digits and dashes, got %q", c.Name)
	case !slices.Contains([]CallerKind{PolicyCaller, RealClient, ExecClient}, c.Kind):
		return fmt.Errorf("kind: want one of %s, got %q", list([]CallerKind{PolicyCaller, RealClient, ExecClient}), c.Kind)
	case c.Kind == PolicyCaller && !slices.Contains([]Policy{Keep, Clear}, c.Policy):
		return fmt.Errorf("policy: a policy caller wants one of %s, got %q", list([]Policy{Keep, Clear}), c.Policy)
	case c.Kind != PolicyCaller && (c.Policy != "" || c.Eject != 0 || c.Refresh != 0):
		return fmt.Errorf("policy: only a policy caller has a policy, eject or refresh (this one is %s)", c.Kind)
	case c.Kind == RealClient && c.Client == "":
		return errors.New("client: a real client names one of the world's clients (experiments registries lists them)")
	case c.Kind != RealClient && c.Client != "":
		return fmt.Errorf("client: only a caller of kind client names a client (this one is %s)", c.Kind)
	case c.Kind == ExecClient && len(c.Command) == 0:
		return errors.New("command: an exec caller wants its program and arguments")
	case c.Kind != ExecClient && len(c.Command) > 0:
		return fmt.Errorf("command: only an exec caller has a command (this one is %s)", c.Kind)
	case c.Rate < 0 || c.Rate > MaxRate:
		return fmt.Errorf("rate: want 0–%d calls per second (0: 40), got %g", MaxRate, c.Rate)
	case c.Eject < 0 || c.Refresh < 0:
		return fmt.Errorf("eject, refresh: want durations ≥ 0, got %s and %s", c.Eject, c.Refresh)
	}
	return nil
}

// hows and whiches say which ways and members each fault takes (the
// first is the default).
var (
	hows = map[FaultKind][]How{Unreachable: {Blackhole, Kill, Drop}, QuorumLoss: {Kill}, CutOffMember: {Blackhole},
		MemberUnreachable: {Drop}}
	whiches = map[FaultKind][]Which{CutOffMember: {Follower, Leader}, MemberUnreachable: {Follower, Leader}}
)

func (s Step) validate(d Duration) error {
	switch {
	case (s.Fault == "") == (s.Probe == ""):
		return errors.New("fault: want exactly one of fault and probe in a step")
	case s.At < 0 || s.At >= d:
		return fmt.Errorf("at: want a time within [0, duration %s), got %s", d, s.At)
	case s.For < 0 || s.At+s.For > d:
		return fmt.Errorf("for: want at + for within the duration (%s), got %s + %s", d, s.At, s.For)
	case s.Probe != "":
		return s.validateProbe()
	case !slices.Contains(FaultKinds, s.Fault):
		return fmt.Errorf("fault: want one of %s, got %q", list(FaultKinds), s.Fault)
	case s.How != "" && !slices.Contains(hows[s.Fault], s.How):
		return fmt.Errorf("how: %s is made by %s, got %q", s.Fault, orNone(list(hows[s.Fault])), s.How)
	case s.Which != "" && !slices.Contains(whiches[s.Fault], s.Which):
		return fmt.Errorf("which: %s acts on %s, got %q", s.Fault, orNone(list(whiches[s.Fault])), s.Which)
	case s.Fault == CrashInstance && s.For > 0:
		return fmt.Errorf("for: %s is for good (no heal), got %s", s.Fault, s.For)
	}
	return nil
}

func (s Step) validateProbe() error {
	switch {
	case !slices.Contains(ProbeKinds, s.Probe):
		return fmt.Errorf("probe: want one of %s, got %q", list(ProbeKinds), s.Probe)
	case s.For != 0 || s.How != "" || s.Which != "":
		return errors.New("probe: a probe step has no for, how or which")
	}
	return nil
}

// NeedsPackets reports whether the step drops real packets (how: drop),
// which only a run in a private network namespace can make.
func (s Step) NeedsPackets() bool { return s.Fault != "" && s.HowOf() == Drop }

// HowOf returns how the step's fault is made (its default when not given).
func (s Step) HowOf() How {
	if s.How != "" || len(hows[s.Fault]) == 0 {
		return s.How
	}
	return hows[s.Fault][0]
}

// WhichOf returns which member the step's fault acts on (its default when not given).
func (s Step) WhichOf() Which {
	if s.Which != "" || len(whiches[s.Fault]) == 0 {
		return s.Which
	}
	return whiches[s.Fault][0]
}

func orNone(s string) string {
	if s == "" {
		return "no choice (leave it out)"
	}
	return s
}

// list formats allowed values: "keep, clear".
func list[T ~string](vs []T) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return strings.Join(out, ", ")
}
