package eureka

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"sdchaos/caller"
	"sdchaos/clock"
	"sdchaos/history"
	"sdchaos/rig"
)

// eurekaListed counts the instances the Eureka servers list every
// ListedEvery for the whole run, as OpListed ops: each server's own
// registry (GET /sdchaos/state on its own port, not through the client
// proxies a fault blackholes), the least over the servers that answered
// within listedAnswer (the registry lists an instance only when every
// live server does); a sample no server answered fails. A sample that
// takes longer than ListedEvery delays the next one.
type eurekaListed struct {
	servers []EurekaServer
}

// listedAnswer bounds one server's answer to a sample: a JVM on a loaded
// 2-core machine can take longer than ListedEvery to answer.
const listedAnswer = time.Second

// Run samples from the recorder's zero for d.
func (s eurekaListed) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	end := rec.T0().Add(d)
	for at := rec.T0(); at.Before(end); at = at.Add(rig.ListedEvery) {
		if err := clock.SleepUntil(ctx, at); err != nil {
			return nil
		}
		start := time.Now()
		n, err := s.least(ctx)
		op := history.Op{Caller: "registry/listed", Kind: history.OpListed, Scheduled: rec.Offset(at), Start: rec.Offset(start),
			End: rec.Offset(time.Now()), Outcome: history.OK, Count: n}
		if err != nil {
			op.Outcome, op.Err, op.Count = caller.Classify(err), err.Error(), 0
		}
		rec.Add(op)
	}
	return nil
}

// least reads every server at once and returns the fewest instances of
// eurekaApp any answering server holds, or an error when none answered.
func (s eurekaListed) least(ctx context.Context) (int, error) {
	c, cancel := context.WithTimeout(ctx, listedAnswer)
	defer cancel()
	counts := make([]int, len(s.servers))
	errs := make([]error, len(s.servers))
	var wg sync.WaitGroup
	for i, srv := range s.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts[i], errs[i] = serverListed(c, srv)
		}()
	}
	wg.Wait()
	least := -1
	for i, n := range counts {
		if errs[i] == nil && (least < 0 || n < least) {
			least = n
		}
	}
	if least < 0 {
		return 0, errors.Join(errs...)
	}
	return least, nil
}

// serverListed is how many instances of eurekaApp server s holds.
func serverListed(ctx context.Context, s EurekaServer) (int, error) {
	st, err := s.(*realServer).State(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range st.IDs {
		if strings.HasPrefix(id, eurekaApp+"/") {
			n++
		}
	}
	return n, nil
}
