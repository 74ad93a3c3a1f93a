package etcdcli

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/namespace"
)

// Settings are what every client of a run uses beyond its endpoints. The
// zero value (no TLS, no user, no namespace) is the embedded cluster's.
type Settings struct {
	// TLS, when set, secures every connection; endpoints must then be https.
	TLS *tls.Config
	// Username and Password authenticate every client (etcd auth).
	Username, Password string
	// Namespace, when set, prefixes every key the clients read, write or
	// watch (etcd's client namespace, as the gRPC proxy's --namespace), and
	// every lease they grant is remembered for Cleanup.
	Namespace string
}

var (
	mu      sync.Mutex
	current Settings
	leases  = map[clientv3.LeaseID]bool{}
)

// Use makes s the settings of every client New creates from now on, and
// returns a function that restores the previous ones. One run at a time
// uses the process's clients (the command runs its scenarios one after
// another), so the settings are the process's.
func Use(s Settings) (restore func()) {
	mu.Lock()
	prev := current
	current = s
	mu.Unlock()
	return func() {
		mu.Lock()
		current = prev
		mu.Unlock()
	}
}

// Current returns the settings in use.
func Current() Settings {
	mu.Lock()
	defer mu.Unlock()
	return current
}

// Scheme returns the URL scheme the clients dial: https with TLS, http otherwise.
func Scheme() string {
	if Current().TLS != nil {
		return "https"
	}
	return "http"
}

// apply sets the credentials of s on cfg.
func (s Settings) apply(cfg *clientv3.Config) {
	cfg.TLS, cfg.Username, cfg.Password = s.TLS, s.Username, s.Password
}

// wrap confines cli to the namespace and remembers its leases.
func (s Settings) wrap(cli *clientv3.Client) {
	if s.Namespace == "" {
		return
	}
	cli.KV = namespace.NewKV(cli.KV, s.Namespace)
	cli.Watcher = namespace.NewWatcher(cli.Watcher, s.Namespace)
	cli.Lease = trackedLease{namespace.NewLease(cli.Lease, s.Namespace)}
}

// trackedLease remembers every lease it grants, for Cleanup.
type trackedLease struct{ clientv3.Lease }

// Grant grants a lease and remembers its id.
func (l trackedLease) Grant(ctx context.Context, ttl int64) (*clientv3.LeaseGrantResponse, error) {
	resp, err := l.Lease.Grant(ctx, ttl)
	if err == nil {
		Track(int64(resp.ID))
	}
	return resp, err
}

// Track remembers a lease granted by a client New did not create (the
// storm's lean registrants speak etcd's gRPC API themselves), so that
// Cleanup revokes it. It does nothing when the settings have no namespace
// (a cluster the harness started dies with the run).
func Track(id int64) {
	mu.Lock()
	if current.Namespace != "" {
		leases[clientv3.LeaseID(id)] = true
	}
	mu.Unlock()
}

// Forget forgets a tracked lease known to be gone (it expired).
func Forget(id int64) {
	mu.Lock()
	delete(leases, clientv3.LeaseID(id))
	mu.Unlock()
}

// Cleanup revokes every lease granted in the namespace of the current
// settings (RevokeTracked) and deletes every key under it, with a client
// that is not confined to it. It returns how many leases it revoked and
// keys it deleted. The keys are deleted even when a revocation failed.
func Cleanup(ctx context.Context, endpoints ...string) (revoked int, deleted int64, err error) {
	s := Current()
	if s.Namespace == "" {
		return 0, 0, nil
	}
	revoked, rerr := RevokeTracked(ctx, endpoints...) // the keys go in any case
	cli, err := newClient(endpoints, s, false)
	if err != nil {
		return revoked, 0, errors.Join(rerr, err)
	}
	defer cli.Close()
	resp, err := cli.Delete(ctx, s.Namespace, clientv3.WithPrefix())
	if err != nil {
		return revoked, 0, errors.Join(rerr, fmt.Errorf("deleting the keys under %s: %w", s.Namespace, err))
	}
	return revoked, resp.Deleted, rerr
}

// Tracked returns how many leases are tracked (granted and not known gone).
func Tracked() int {
	mu.Lock()
	defer mu.Unlock()
	return len(leases)
}

// revokeAtOnce is how many revocations RevokeTracked keeps in flight: a
// storm's fleet leaves thousands of leases, and one at a time they would
// not fit a clean-up's budget of seconds.
const revokeAtOnce = 128

// RevokeTracked revokes every tracked lease that the cluster still lists
// (a lease that expired is forgotten, not revoked), revokeAtOnce at a time,
// and returns how many it revoked. Without a namespace it does nothing. A
// process that shares its namespace with others (a storm's shard ≥ 1)
// revokes its own leases with it and leaves the keys to the namespace's owner.
func RevokeTracked(ctx context.Context, endpoints ...string) (int, error) {
	s := Current()
	if s.Namespace == "" {
		return 0, nil
	}
	cli, err := newClient(endpoints, s, false)
	if err != nil {
		return 0, err
	}
	defer cli.Close()
	ids := aliveTracked(ctx, cli)
	var (
		wg      sync.WaitGroup
		sem     = make(chan struct{}, revokeAtOnce)
		revoked atomic.Int64
		errMu   sync.Mutex
		first   error
	)
	for _, id := range ids {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if _, err := cli.Revoke(ctx, id); err != nil && !isLeaseNotFound(err) {
				errMu.Lock()
				first = cmp.Or(first, fmt.Errorf("revoking lease %x: %w", id, err))
				errMu.Unlock()
				return
			}
			Forget(int64(id))
			revoked.Add(1)
		}()
	}
	wg.Wait()
	return int(revoked.Load()), first
}

// aliveTracked returns the tracked leases the cluster still lists, and
// forgets the others; when the list cannot be read, every tracked lease.
func aliveTracked(ctx context.Context, cli *clientv3.Client) []clientv3.LeaseID {
	mu.Lock()
	ids := make([]clientv3.LeaseID, 0, len(leases))
	for id := range leases {
		ids = append(ids, id)
	}
	mu.Unlock()
	resp, err := cli.Leases(ctx)
	if err != nil {
		return ids
	}
	alive := make(map[clientv3.LeaseID]bool, len(resp.Leases))
	for _, l := range resp.Leases {
		alive[l.ID] = true
	}
	out := ids[:0]
	for _, id := range ids {
		if alive[id] {
			out = append(out, id)
		} else {
			Forget(int64(id))
		}
	}
	return out
}

// CountNamespace returns how many keys are under the current namespace
// (read without the namespace; 0 when there is none).
func CountNamespace(ctx context.Context, endpoints ...string) (int64, error) {
	s := Current()
	if s.Namespace == "" {
		return 0, nil
	}
	cli, err := newClient(endpoints, s, false)
	if err != nil {
		return 0, err
	}
	defer cli.Close()
	resp, err := cli.Get(ctx, s.Namespace, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return resp.Count, nil
}

func isLeaseNotFound(err error) bool {
	return errors.Is(err, rpctypes.ErrLeaseNotFound)
}
