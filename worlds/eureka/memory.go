package eureka

import (
	"fmt"
	"strings"

	"sdchaos/procstat"
	"sdchaos/rig"
)

// rssReader is a server or scheduler running in a process of its own whose
// resident set size can be read (real Eureka's JVMs).
type rssReader interface{ RSS() (int64, error) }

// reportMemory prints, at the end of the timeline, the resident set size of
// every process of the world that has one and this process's peak (VmHWM):
// the memory a real-Eureka run costs. Nothing is printed for a world without
// such processes (the model's servers are re-executions of this binary).
func reportMemory(env *rig.Env, w *EurekaWorld) {
	var parts []string
	var total int64
	add := func(name string, x any) {
		m, ok := x.(rssReader)
		if !ok {
			return
		}
		if n, err := m.RSS(); err == nil { // a killed server has none
			parts = append(parts, fmt.Sprintf("%s %d", name, n>>20))
			total += n
		}
	}
	for _, c := range w.Clusters {
		for _, s := range c.Servers {
			add(strings.TrimSpace(c.Label+" "+s.Name()), s)
		}
	}
	for _, s := range w.Schedulers {
		add(s.Name(), s)
	}
	if len(parts) == 0 {
		return
	}
	self, err := procstat.PeakRSS("self")
	harness := "unknown"
	if err == nil {
		harness = fmt.Sprintf("%d MiB", self>>20)
	}
	env.Printf("memory at the end of the timeline (RSS, MiB): %s — %d JVMs, %d MiB in all; this harness process's peak %s",
		strings.Join(parts, ", "), len(parts), total>>20, harness)
}
