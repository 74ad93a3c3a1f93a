package etcdcli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"

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
		mu.Lock()
		leases[resp.ID] = true
		mu.Unlock()
	}
	return resp, err
}

// Cleanup revokes every lease granted in the namespace of the current
// settings and deletes every key under it, with a client that is not
// confined to it. It returns how many leases it revoked and keys it
// deleted; a lease already gone counts as revoked.
func Cleanup(ctx context.Context, endpoints ...string) (revoked int, deleted int64, err error) {
	s := Current()
	if s.Namespace == "" {
		return 0, 0, nil
	}
	cli, err := newClient(endpoints, s, false)
	if err != nil {
		return 0, 0, err
	}
	defer cli.Close()
	mu.Lock()
	ids := make([]clientv3.LeaseID, 0, len(leases))
	for id := range leases {
		ids = append(ids, id)
	}
	mu.Unlock()
	for _, id := range ids {
		if _, err := cli.Revoke(ctx, id); err != nil && !isLeaseNotFound(err) {
			return revoked, 0, fmt.Errorf("revoking lease %x: %w", id, err)
		}
		mu.Lock()
		delete(leases, id)
		mu.Unlock()
		revoked++
	}
	resp, err := cli.Delete(ctx, s.Namespace, clientv3.WithPrefix())
	if err != nil {
		return revoked, 0, fmt.Errorf("deleting the keys under %s: %w", s.Namespace, err)
	}
	return revoked, resp.Deleted, nil
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
