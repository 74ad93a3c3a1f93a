package scenarios

import (
	"time"

	"sdchaos/history"
)

// RunMeta returns the metadata of a run on env that started at start: this
// process (history.NewMeta) and the real systems the run's worlds described
// (Env.World); on an external etcd cluster the etcd field names that
// cluster's version.
func RunMeta(env *Env, start time.Time) *history.Meta {
	m := history.NewMeta(start)
	m.World = env.World()
	if env.TargetVersion != "" {
		m.Etcd = env.TargetVersion + " (external cluster)"
	}
	return m
}
