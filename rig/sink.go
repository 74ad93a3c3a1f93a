package rig

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"sdchaos/history"
)

// Sink records ops of things that start before the run's recorder exists
// (instances registering as the world starts): what comes before Set is
// dropped, what comes after is recorded.
type Sink struct {
	rec atomic.Pointer[history.Recorder]
}

// Set makes the sink record into rec from now on.
func (s *Sink) Set(rec *history.Recorder) { s.rec.Store(rec) }

// Registered records an instance's registration (Kind OpRegister, Target
// the instance).
func (s *Sink) Registered(id string, start, end time.Time, err error) {
	rec := s.rec.Load()
	if rec == nil {
		return
	}
	op := history.Op{Caller: "registry/register", Kind: history.OpRegister, Target: id, Scheduled: rec.Offset(start),
		Start: rec.Offset(start), End: rec.Offset(end), Outcome: history.OK}
	if err != nil {
		op.Outcome, op.Err = history.Fail, err.Error()
	}
	rec.Add(op)
}

// Draws hands out seeded delays uniform in [0, spread) to goroutines (a
// source of its own, seeded from the run's).
type Draws struct {
	mu     sync.Mutex
	r      *rand.Rand
	spread time.Duration
}

// NewDraws returns delays in [0, spread) seeded from env's source.
func NewDraws(env *Env, spread time.Duration) *Draws {
	return &Draws{r: rand.New(rand.NewPCG(env.Rand.Uint64(), env.Rand.Uint64())), spread: spread}
}

// Next returns the next delay (0 when spread is 0).
func (d *Draws) Next() time.Duration {
	if d.spread <= 0 {
		return 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return time.Duration(d.r.Int64N(int64(d.spread)))
}
