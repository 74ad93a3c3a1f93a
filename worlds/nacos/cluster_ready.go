package nacos

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// ClusterState is what every member says of the cluster at one moment, from its own APIs.
type ClusterState struct {
	// Addresses are the members' names (cluster.conf order).
	Addresses []string
	// Views holds, per member address, its view of the cluster; a member that did not answer
	// has an entry in Errs instead.
	Views map[string][]MemberInfo
	// Naming holds, per member address, naming's status (NamingMetrics.Status).
	Naming map[string]string
	// Errs holds, per member address, why it did not answer.
	Errs map[string]error
}

// State asks every member at once for its view and naming's status.
func (c *Cluster) State(ctx context.Context) ClusterState {
	st := ClusterState{Addresses: c.addresses(), Views: map[string][]MemberInfo{}, Naming: map[string]string{},
		Errs: map[string]error{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, m := range c.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, verr := m.View(ctx)
			n, nerr := m.Naming(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err := errors.Join(verr, nerr); err != nil {
				st.Errs[m.Address()] = err
				return
			}
			st.Views[m.Address()], st.Naming[m.Address()] = v, n.Status
		}()
	}
	wg.Wait()
	return st
}

func (c *Cluster) addresses() []string {
	out := make([]string, len(c.members))
	for i, m := range c.members {
		out[i] = m.Address()
	}
	return out
}

// Ready reports nil when the cluster serves as a whole: every member answers; every member's
// view lists exactly the cluster's members, each UP and each with the version it reported
// (members start UP in every view before any report, MemberUtil.singleParse, so UP alone
// proves nothing; the version arrives only with a member report or its answer,
// ServerMemberManager.update, MemberUtil.onSuccess); and, with warmup (the members run with
// nacos.naming.data.warmup), naming is UP on every member, which is JRaft's leaders and
// Distro's snapshot loaded (ServerStatusManager.isReady). Otherwise the first reason, naming
// the member.
func (st ClusterState) Ready(warmup bool) error {
	for _, a := range st.Addresses {
		if err := st.Errs[a]; err != nil {
			return fmt.Errorf("%s does not answer: %w", a, err)
		}
		if err := viewReady(a, st.Addresses, st.Views[a]); err != nil {
			return err
		}
		if warmup && st.Naming[a] != "UP" {
			return fmt.Errorf("naming on %s is %s (JRaft leaders or Distro's snapshot not ready)", a, st.Naming[a])
		}
	}
	return nil
}

// viewReady checks one member's view.
func viewReady(viewer string, want []string, view []MemberInfo) error {
	var got []string
	for _, m := range view {
		got = append(got, m.Address)
		switch {
		case !slices.Contains(want, m.Address):
			return fmt.Errorf("%s lists %s, not a member", viewer, m.Address)
		case m.State != StateUp:
			return fmt.Errorf("%s sees %s %s", viewer, m.Address, m.State)
		case m.Version == "":
			return fmt.Errorf("%s has exchanged no report with %s yet", viewer, m.Address)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			return fmt.Errorf("%s does not list %s", viewer, w)
		}
	}
	return nil
}

// AwaitReady polls State every 200 ms until Ready holds, for at most timeout; the error names
// the last reason.
func (c *Cluster) AwaitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		err := c.State(ctx).Ready(c.spec.DataWarmup)
		if err == nil {
			return nil
		}
		for _, m := range c.members {
			if !m.Alive() {
				return fmt.Errorf("cluster not ready: %s exited (log %s)", m.name, m.Server().LogPath())
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster not ready after %s: %w", timeout, err)
		case <-tick.C:
		}
	}
}

// Owner is one registered instance and the member responsible for it.
type Owner struct {
	Publisher
	// Member is the address of the member holding the client's connection ("" when no member
	// does: the client is gone, or was registered over HTTP).
	Member string
}

// Owners returns, for every client that registered an instance of service as the first
// answering member knows them (Distro copies every client to every member), the member holding
// its connection: the member responsible for it, which alone syncs it to the others (naming
// ConnectionBasedClientManager.isResponsibleClient: ConnectionBasedClient.isNative;
// DistroClientDataProcessor syncs responsible clients only). A member that does not answer
// (killed, stopped) holds no connection here.
func (c *Cluster) Owners(ctx context.Context, service string) ([]Owner, error) {
	var pubs []Publisher
	var errs []error
	conns := map[string]string{}
	answered := false
	for _, m := range c.members {
		ids, err := m.Connections(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, id := range ids {
			conns[id] = m.Address()
		}
		if !answered {
			if pubs, err = m.Publishers(ctx, service); err != nil {
				errs = append(errs, err)
				continue
			}
			answered = true
		}
	}
	if !answered {
		return nil, fmt.Errorf("owners of %s: no member answered: %w", service, errors.Join(errs...))
	}
	out := make([]Owner, len(pubs))
	for i, p := range pubs {
		out[i] = Owner{Publisher: p, Member: conns[p.ClientID]}
	}
	return out, nil
}
