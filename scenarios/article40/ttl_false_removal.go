package article40

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"sdchaos/clock"
	"sdchaos/history"
	"sdchaos/registry"
	"sdchaos/scenarios"
)

func init() {
	scenarios.Register(scenarios.Spec{
		Name:    "ttl-false-removal",
		Article: "article 40.2",
		Summary: "live instances falsely removed vs ttl under independent heartbeat loss (virtual clock; real registry beside a fast simulation)",
		Help: `Setup: live instances, registered at time 0, heartbeat every --heartbeat for
--duration (default 300s) of virtual time; each heartbeat is lost independently with
probability --loss (seeded). No instance ever crashes.

Rule at each tick: the tick's delivered heartbeats are applied first, then an instance expires if
now − last heartbeat ≥ ttl; an expired instance registers again at its next delivered heartbeat.
Each expiry is one false removal. So a ttl of k heartbeat intervals (k = ⌈ttl/heartbeat⌉) falsely
removes an instance once per run of ≥ k consecutive lost heartbeats.

Two independent measurements of every ttl in --ttls:
- the registry: --registry-instances instances on the real registry package (Scan strategy,
  Manual, one registry per ttl on one virtual clock): at each tick the clock advances, every
  delivered heartbeat calls Heartbeat (ErrNotFound → Register again: a re-registration), then one
  Expire pass; its removals are counted. k is whatever the registry's own deadline rule gives.
- the simulation: --instances instances; it skips delivered heartbeats in geometric jumps and
  draws only the loss runs, so 1,000,000 instances × 3600 s take seconds (try --instances 1000000
  --duration 3600s). All ttls are counted on the same loss pattern.

Theory: the exact expectation under the rule, instances × (loss^k + (ticks − k)(1 − loss)loss^k);
the article's instances × ticks × loss^k × (1 − loss) is shown beside it. Bands (the counts are
sums of rare, nearly independent events, so their variance is at most their mean): each count
within 4√E + 5 of its expectation E; the registry's count minus the simulation's (scaled to the
registry's instances by s) within 4√(E_reg + s²·E_sim) + 5 (two independent counts); every
removal re-registered at the instance's next delivered heartbeat unless the run ended first.

Article (1000 instances, 300 s, 1 s heartbeats, 10 % loss): ttl 1.5, 2, 3, 5 s → 2652, 2652,
263, 3 false removals (theory 2700, 2700, 270, 2.7).`,
		Ground: scenarios.VirtualClock, // no process, no etcd: a virtual clock
		New: func() scenarios.Config {
			return &ttlFalseRemoval{Instances: 1000, RegistryInstances: 1000, Heartbeat: time.Second, Loss: 0.1,
				TTLs: scenarios.SecondsList{1500 * time.Millisecond, 2 * time.Second, 3 * time.Second, 5 * time.Second}}
		},
	})
}

// ttlFalseRemoval is article 40.2; the simulated length is the common --duration.
type ttlFalseRemoval struct {
	Instances, RegistryInstances int
	Heartbeat                    time.Duration
	Loss                         float64
	TTLs                         scenarios.SecondsList
}

// maxRegistryHeartbeats bounds registry instances × ticks × ttls (a few
// tens of seconds of Heartbeat calls).
const maxRegistryHeartbeats = 200_000_000

// Defaults sets --duration to the article's 5 minutes.
func (s *ttlFalseRemoval) Defaults(c *scenarios.Common) { c.Duration = 300 * time.Second }

func (s *ttlFalseRemoval) Flags(fs *flag.FlagSet) {
	fs.IntVar(&s.Instances, "instances", s.Instances, "number of live instances in the simulation")
	fs.IntVar(&s.RegistryInstances, "registry-instances", s.RegistryInstances, "number of live instances on the real registry")
	fs.DurationVar(&s.Heartbeat, "heartbeat", s.Heartbeat, "heartbeat interval")
	fs.Float64Var(&s.Loss, "loss", s.Loss, "probability that a heartbeat is lost, independently, in [0, 1)")
	fs.Var(&s.TTLs, "ttls", "comma-separated ttls in seconds (or Go durations)")
}

func (s *ttlFalseRemoval) Validate(c scenarios.Common) error {
	switch {
	case s.Instances < 1 || s.Instances > 100_000_000:
		return scenarios.Usagef("--instances (%d) must be within 1–100000000", s.Instances)
	case s.RegistryInstances < 1 || s.RegistryInstances > 1_000_000:
		return scenarios.Usagef("--registry-instances (%d) must be within 1–1000000", s.RegistryInstances)
	case s.Heartbeat <= 0:
		return scenarios.Usagef("--heartbeat (%s) must be positive", s.Heartbeat)
	case !(s.Loss >= 0 && s.Loss < 1):
		return scenarios.Usagef("--loss (%g) must be in [0, 1)", s.Loss)
	case len(s.TTLs) == 0:
		return scenarios.Usagef("--ttls is empty; give at least one ttl, e.g. --ttls 1.5,2,3,5")
	case c.Duration < s.Heartbeat:
		return scenarios.Usagef("--duration (%s) is shorter than one --heartbeat (%s)", c.Duration, s.Heartbeat)
	}
	for i, ttl := range s.TTLs {
		if ttl <= 0 {
			return scenarios.Usagef("--ttls: ttl %s s must be positive", scenarios.SecondsLabel(ttl))
		}
		if slices.Contains(s.TTLs[:i], ttl) {
			return scenarios.Usagef("--ttls lists %s s twice", scenarios.SecondsLabel(ttl))
		}
	}
	if n := float64(s.RegistryInstances) * float64(c.Duration/s.Heartbeat) * float64(len(s.TTLs)); n > maxRegistryHeartbeats {
		return scenarios.Usagef("--registry-instances (%d) × %d ticks × %d ttls = %.3g registry heartbeats, more than %d: lower --registry-instances",
			s.RegistryInstances, c.Duration/s.Heartbeat, len(s.TTLs), n, maxRegistryHeartbeats)
	}
	return nil
}

// removalRecord is what a ttl-false-removal run recorded (the history's Data).
type removalRecord struct {
	Sim      simRecord      `json:"sim"`
	Registry registryRecord `json:"registry"`
}

// simRecord is the simulation's outcome: its parameters and loss runs.
type simRecord struct {
	Instances int     `json:"instances"`
	Ticks     int     `json:"ticks"`
	Loss      float64 `json:"loss"`
	Seed      uint64  `json:"seed"`
	// ByLength is registry.LossRuns.ByLength.
	ByLength []int64       `json:"by_length"`
	Wall     time.Duration `json:"wall_ns"`
}

// registryRecord is the real registry's outcome, one count per ttl.
type registryRecord struct {
	Instances int             `json:"instances"`
	Ticks     int             `json:"ticks"`
	Strategy  string          `json:"strategy"`
	Seed      uint64          `json:"seed"`
	PerTTL    []registryCount `json:"per_ttl"`
	Wall      time.Duration   `json:"wall_ns"`
}

// registryCount is one ttl's registry: expiries (false removals),
// re-registrations after ErrNotFound, and instances not registered at the end.
type registryCount struct {
	TTL             time.Duration `json:"ttl_ns"`
	Removals        int64         `json:"removals"`
	Reregistrations int64         `json:"reregistrations"`
	DownAtEnd       int64         `json:"down_at_end"`
}

// Run is the plan: the simulation, then the real registry on its own loss
// pattern; both go into the history's Data.
func (s *ttlFalseRemoval) Run(ctx context.Context, env *scenarios.Env) (*history.History, error) {
	ticks := int(env.Duration / s.Heartbeat)
	simSeed, regSeed := env.Rand.Uint64(), env.Rand.Uint64()
	env.Printf("simulating %d instances × %d heartbeats at %g loss", s.Instances, ticks, s.Loss)
	sim, err := s.simulate(ctx, ticks, simSeed)
	if err != nil {
		return nil, fmt.Errorf("simulating: %w", err)
	}
	env.Printf("simulated %.3g heartbeats in %.3f s; now %d instances on the registry", float64(s.Instances)*float64(ticks),
		sim.Wall.Seconds(), s.RegistryInstances)
	reg, err := s.runRegistry(ctx, ticks, regSeed)
	if err != nil {
		return nil, fmt.Errorf("running the registry: %w", err)
	}
	env.Printf("registry: %.3g heartbeats in %.3f s", float64(s.RegistryInstances)*float64(ticks), reg.Wall.Seconds())
	// No Timeline: it is virtual, so wall ÷ timeline means nothing here.
	h := &history.History{}
	if err := h.SetData(removalRecord{Sim: sim, Registry: reg}); err != nil {
		return nil, err
	}
	return h, nil
}

// simulate runs the skip-ahead simulation.
func (s *ttlFalseRemoval) simulate(ctx context.Context, ticks int, seed uint64) (simRecord, error) {
	maxK := 1
	for _, ttl := range s.TTLs {
		maxK = max(maxK, registry.TicksToExpire(ttl, s.Heartbeat))
	}
	sim := registry.LossSim{Instances: s.Instances, Ticks: ticks, Loss: s.Loss, Seed: seed, MaxRun: min(maxK, max(ticks, 1))}
	start := time.Now()
	runs, err := sim.Run(ctx)
	if err != nil {
		return simRecord{}, err
	}
	return simRecord{Instances: s.Instances, Ticks: ticks, Loss: s.Loss, Seed: seed, ByLength: runs.ByLength,
		Wall: time.Since(start)}, nil
}

// runRegistry applies the rule tick by tick to one real registry per ttl,
// all fed the same delivered heartbeats.
func (s *ttlFalseRemoval) runRegistry(ctx context.Context, ticks int, seed uint64) (registryRecord, error) {
	start := time.Now()
	v := clock.NewVirtual()
	ids := make([]string, s.RegistryInstances)
	for j := range ids {
		ids[j] = "i" + strconv.Itoa(j)
	}
	regs := make([]*registry.Registry, len(s.TTLs))
	for i, ttl := range s.TTLs {
		r, err := registry.New(registry.Options{Clock: v, Strategy: registry.Scan, Manual: true})
		if err != nil {
			return registryRecord{}, fmt.Errorf("creating the registry of ttl %s: %w", ttl, err)
		}
		defer r.Close()
		for _, id := range ids {
			if err := r.Register("svc", id, "127.0.0.1:9150", ttl); err != nil {
				return registryRecord{}, fmt.Errorf("registering %s: %w", id, err)
			}
		}
		regs[i] = r
	}
	counts, err := s.tick(ctx, v, regs, ids, ticks, rand.New(rand.NewPCG(seed, 0x40_2)))
	if err != nil {
		return registryRecord{}, err
	}
	return registryRecord{Instances: s.RegistryInstances, Ticks: ticks, Strategy: registry.Scan.String(), Seed: seed,
		PerTTL: counts, Wall: time.Since(start)}, nil
}

// tick runs the ticks: advance, delivered heartbeats (re-registering the
// expired), one expiry pass per registry.
func (s *ttlFalseRemoval) tick(ctx context.Context, v *clock.Virtual, regs []*registry.Registry, ids []string, ticks int,
	rng *rand.Rand) ([]registryCount, error) {
	counts := make([]registryCount, len(regs))
	for i := range counts {
		counts[i].TTL = s.TTLs[i]
	}
	for t := 1; t <= ticks; t++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v.AdvanceTo(clock.Epoch.Add(time.Duration(t) * s.Heartbeat))
		for _, id := range ids {
			if rng.Float64() < s.Loss {
				continue
			}
			for i, r := range regs {
				if err := s.heartbeat(r, id, s.TTLs[i], &counts[i]); err != nil {
					return nil, fmt.Errorf("tick %d: %w", t, err)
				}
			}
		}
		for i, r := range regs {
			counts[i].Removals += int64(r.Expire())
		}
	}
	for i, r := range regs {
		counts[i].DownAtEnd = int64(len(ids) - r.Len())
	}
	return counts, nil
}

// heartbeat delivers one heartbeat; an instance the registry removed registers again.
func (s *ttlFalseRemoval) heartbeat(r *registry.Registry, id string, ttl time.Duration, c *registryCount) error {
	err := r.Heartbeat(id)
	if !errors.Is(err, registry.ErrNotFound) {
		return err
	}
	c.Reregistrations++
	if err := r.Register("svc", id, "127.0.0.1:9150", ttl); err != nil {
		return fmt.Errorf("re-registering %s: %w", id, err)
	}
	return nil
}
