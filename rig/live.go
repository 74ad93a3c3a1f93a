package rig

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"sdchaos/history"
)

// live prints one progress line per second while a recorder runs: the
// elapsed time against the timeline (with a percentage), each caller's ok
// and failed sends so far, and each fault or probe as it fires.
type live struct {
	stop chan struct{}
	done sync.WaitGroup
}

// NewRecorder returns a recorder whose time zero is StartLead from now.
// Unless env.Quiet, progress is printed to env.Progress every second until
// env.Close; real is the real length of the timeline (0: env.Duration).
func NewRecorder(env *Env, real time.Duration) *history.Recorder {
	return NewRecorderAt(env, time.Now().Add(StartLead), real)
}

// NewRecorderAt is NewRecorder with time zero t0 (a world that sets its
// own zero: callers launched well before their first call).
func NewRecorderAt(env *Env, t0 time.Time, real time.Duration) *history.Recorder {
	rec := history.NewRecorder(t0)
	if env != nil {
		env.supMu.Lock()
		env.rec = rec
		env.supMu.Unlock()
	}
	if env == nil || env.Quiet {
		return rec
	}
	if real <= 0 {
		real = env.Duration
	}
	rec.Watch(func(e history.Event) {
		line := fmt.Sprintf("  ! %7.2f s  %s", e.At.Seconds(), e.Label)
		if e.Err != "" {
			line += " — DID NOT TAKE EFFECT: " + e.Err
		}
		fmt.Fprintln(env.Progress, line)
	})
	l := &live{stop: make(chan struct{})}
	l.done.Add(1)
	go l.run(env, rec, real)
	env.AddCloser(func() { close(l.stop); l.done.Wait() })
	return rec
}

func (l *live) run(env *Env, rec *history.Recorder, real time.Duration) {
	defer l.done.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			el := time.Since(rec.T0())
			if el < 0 {
				continue
			}
			fmt.Fprintf(env.Progress, "  · %5.0f s / %.0f s (%3.0f %%)%s\n", el.Seconds(), real.Seconds(),
				100*min(1, el.Seconds()/real.Seconds()), tally(rec.Tally()))
		}
	}
}

func tally(in map[string][2]int) string {
	t := map[string][2]int{}
	for n, v := range in {
		if i := strings.Index(n, "/"); i > 0 {
			n = n[:i] // group a family of callers (kv/n1/put, kv/n2/get …) as one
		}
		g := t[n]
		t[n] = [2]int{g[0] + v[0], g[1] + v[1]}
	}
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "  %s %d/%d", n, t[n][0], t[n][1])
	}
	return b.String()
}
