package nacos

import (
	"math/rand/v2"
	"sync"

	"sdchaos/rig"
)

// memberPick draws the member a policy caller's read tries first, as nacos-client draws it for
// each request (NamingHttpClientProxy.reqApi: random.nextInt(servers.size())), from a source
// seeded by the run's: the same seed makes the same picks. It is safe for concurrent use.
type memberPick struct {
	mu sync.Mutex
	r  *rand.Rand
}

// newMemberPick seeds a pick from env's random source (two draws).
func newMemberPick(env *rig.Env) *memberPick {
	return &memberPick{r: rand.New(rand.NewPCG(env.Rand.Uint64(), env.Rand.Uint64()))}
}

// Start returns the index of the server tried first among n.
func (p *memberPick) Start(n int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.r.IntN(n)
}
