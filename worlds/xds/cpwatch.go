package xds

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"sdchaos/clock"
	"sdchaos/history"
)

// cpWatchEvery is how often the world asks the control plane whether it
// follows the registry.
const cpWatchEvery = 250 * time.Millisecond

// RegistryTransition is when the control plane was seen losing (OK false)
// or regaining (OK true) its view of the registry, from time zero.
type RegistryTransition struct {
	At time.Duration `json:"at"`
	OK bool          `json:"registry_ok"`
}

// WorldData is what the history keeps of the xDS world: the control
// plane's view of the registry over the run (it shows that a cut reached
// the control plane at all, which the callers' tables cannot).
type WorldData struct {
	ControlPlane []RegistryTransition `json:"control_plane_registry"`
}

// String says when the control plane lost and regained the registry.
func (d WorldData) String() string {
	var parts []string
	for _, t := range d.ControlPlane {
		what := "lost the registry"
		if t.OK {
			what = "followed the registry"
		}
		parts = append(parts, fmt.Sprintf("%s at %.2f s", what, t.At.Seconds()))
	}
	if len(parts) == 0 {
		return "the control plane never answered its status"
	}
	return "control plane: " + strings.Join(parts, ", ")
}

// cpWatcher asks the control plane its status every cpWatchEvery from
// time zero and keeps the transitions of its registry view.
type cpWatcher struct {
	cp   *ControlPlane
	mu   sync.Mutex
	seen []RegistryTransition
}

// Run watches from the recorder's zero for d.
func (c *cpWatcher) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	end := rec.T0().Add(d)
	for at := rec.T0(); at.Before(end); at = at.Add(cpWatchEvery) {
		if err := clock.SleepUntil(ctx, at); err != nil {
			return nil
		}
		st, err := c.cp.Status()
		if err != nil {
			continue
		}
		c.mu.Lock()
		if n := len(c.seen); n == 0 || c.seen[n-1].OK != st.RegistryOK {
			c.seen = append(c.seen, RegistryTransition{At: rec.Offset(time.Now()), OK: st.RegistryOK})
		}
		c.mu.Unlock()
	}
	return nil
}

// data returns what was seen.
func (c *cpWatcher) data() WorldData {
	c.mu.Lock()
	defer c.mu.Unlock()
	return WorldData{ControlPlane: append([]RegistryTransition(nil), c.seen...)}
}
