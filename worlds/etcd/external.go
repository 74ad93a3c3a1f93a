package etcd

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"

	"sdchaos/cluster"
	"sdchaos/etcdcli"
	"sdchaos/history"
	"sdchaos/rig"
	"sdchaos/worlds/etcd/nemesis"
)

// External describes an etcd cluster the run attaches to instead of
// starting one (the command's --endpoints and friends).
type External struct {
	// Endpoints are client URLs of the cluster.
	Endpoints []string
	// Members names the members and their client URLs (optional; the
	// member list API is asked otherwise).
	Members []cluster.Member
	// CACert, Cert and Key are PEM files, as etcdctl's --cacert/--cert/--key.
	CACert, Cert, Key string
	// User is "name:password" (etcd auth), as etcdctl's --user.
	User string
	// Nemesis performs member faults; nil when none was given.
	Nemesis *nemesis.File
}

// settings returns the client settings of the run: TLS, user, and the
// key namespace for everything the run writes (ns, or a unique one).
func (x *External) settings(ns string) (etcdcli.Settings, error) {
	s := etcdcli.Settings{Namespace: cmp.Or(ns, runNamespace())}
	if x.CACert != "" || x.Cert != "" || x.Key != "" {
		info := transport.TLSInfo{TrustedCAFile: x.CACert, CertFile: x.Cert, KeyFile: x.Key}
		cfg, err := info.ClientConfig()
		if err != nil {
			return s, fmt.Errorf("%w: TLS settings: %v", rig.ErrTarget, err)
		}
		if u, err := url.Parse(x.Endpoints[0]); err == nil {
			cfg.ServerName = u.Hostname() // the proxies are on 127.0.0.1; verify the member's name
		}
		s.TLS = cfg
	}
	if x.User != "" {
		s.Username, s.Password, _ = strings.Cut(x.User, ":")
	}
	return s, nil
}

// runNamespace returns a key prefix no other run uses: "/sdchaos/<UTC
// time>-<random>". It does not draw from the run's seeded source, so the
// run's randomness is the same as in the embedded mode.
func runNamespace() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("/sdchaos/%s-%x", time.Now().UTC().Format("20060102T150405"), b)
}

// attach connects the rig to the external cluster: it installs the client
// settings, attaches (no process is started), checks the nemesis file
// against the members, and registers the clean-up (heal every fault the
// nemesis injected, revoke the leases the rig's process granted, delete the
// namespace's keys unless o.Guest) for the rig's Close, which Env.Close
// (also on Ctrl-C and SIGTERM) calls in any case.
func (r *Etcd) attach(ctx context.Context, o EtcdOptions) error {
	x := r.env.Attach.Settings.(*External)
	s, err := x.settings(o.Namespace)
	if err != nil {
		return err
	}
	restore := etcdcli.Use(s)
	var nem *nemesis.Nemesis
	var cn cluster.Nemesis
	if x.Nemesis != nil {
		nem = nemesis.New(x.Nemesis)
		nem.Observe = func(run nemesis.Run) { recordNemesis(r.env, run) }
		cn = nem
	}
	r.release = sync.OnceFunc(func() { r.cleanUp(nem, restore, o.Guest) })
	r.env.AddCloser(r.Close)
	sup, err := r.env.Supervisor()
	if err != nil {
		return err
	}
	c, err := cluster.Attach(ctx, cluster.AttachConfig{Endpoints: x.Endpoints, Members: x.Members, Nemesis: cn, Timeout: 5 * time.Second,
		Supervisor: sup, CACert: x.CACert, Cert: x.Cert, Key: x.Key})
	if err != nil {
		return fmt.Errorf("%w: attaching to %s: %v", rig.ErrTarget, strings.Join(x.Endpoints, ","), err)
	}
	r.Cluster = c
	if x.Nemesis != nil {
		if err := x.Nemesis.CheckMembers(members(c)); err != nil {
			return fmt.Errorf("%w: %v", rig.ErrTarget, err)
		}
	}
	r.env.TargetVersion = targetVersion(ctx, c)
	r.env.Describe(externalEtcd(r.env.TargetVersion, c.Endpoints()))
	r.env.Printf("etcd: attached to %d members (%s, etcd %s); the run's keys live under %s", c.Size(), strings.Join(c.Endpoints(), ","),
		r.env.TargetVersion, s.Namespace)
	return nil
}

// targetVersion returns the version the first member reports ("unknown" if it does not answer).
func targetVersion(ctx context.Context, c *cluster.Cluster) string {
	cli, err := c.Client()
	if err != nil {
		return "unknown"
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	resp, err := cli.Status(ctx, c.Node(0).ClientURL())
	if err != nil {
		return "unknown"
	}
	return resp.Version
}

func members(c *cluster.Cluster) []cluster.Member {
	out := make([]cluster.Member, c.Size())
	for i, n := range c.Nodes() {
		out[i] = n.Member()
	}
	return out
}

// cleanUpTimeout bounds the key and lease clean-up at the end of a world,
// plus a second for every revokeRate leases to revoke: etcd revokes through
// raft, and a registry on one loaded core took more than 10 s for a storm's
// 4000 (the storm's own --revoke-rate assumes 200 a second).
const (
	cleanUpTimeout = 10 * time.Second
	revokeRate     = 200
)

// cleanUpBudget is the clean-up's deadline for the leases tracked now.
func cleanUpBudget() time.Duration {
	return cleanUpTimeout + time.Duration(etcdcli.Tracked()/revokeRate)*time.Second
}

// cleanUp heals what the nemesis left in place, revokes the run's leases
// and deletes its keys (a guest only revokes its own leases), then
// restores the client settings. It is idempotent: a second call finds
// nothing pending. A heal that fails makes Env.Close return an error (the
// command exits 4: the environment is not as it was).
func (r *Etcd) cleanUp(nem *nemesis.Nemesis, restore func(), guest bool) {
	if nem != nil {
		if err := nem.HealAll(context.Background()); err != nil {
			r.env.Printf("NEMESIS HEAL FAILED, a fault may be left in place: %v", err)
			r.env.HealFailed(fmt.Errorf("healing the external cluster (a fault may be left in place): %w", err))
		}
	}
	if r.Group != nil {
		r.Group.Close()
	}
	defer restore()
	if r.Cluster == nil {
		return // never attached: nothing was written
	}
	ctx, cancel := context.WithTimeout(context.Background(), cleanUpBudget())
	defer cancel()
	eps := r.env.Attach.Settings.(*External).Endpoints
	if guest {
		if leases, err := etcdcli.RevokeTracked(ctx, eps...); err != nil {
			r.env.Printf("revoking this process's leases in %s: %v", etcdcli.Current().Namespace, err)
		} else if leases > 0 {
			r.env.Printf("revoked this process's %d leases (the keys under %s are the run's first process's to remove)", leases, etcdcli.Current().Namespace)
		}
		return
	}
	if leases, keys, err := etcdcli.Cleanup(ctx, eps...); err != nil {
		r.env.Printf("cleaning up the run's keys under %s: %v", etcdcli.Current().Namespace, err)
	} else if leases+int(keys) > 0 {
		r.env.Printf("removed the run's %d keys and revoked its %d leases", keys, leases)
	}
}

// recordNemesis adds a nemesis command to the run's history as an op
// ("nemesis/<action>" on the member; its output as the value).
func recordNemesis(e *rig.Env, run nemesis.Run) {
	rec := e.Recorder()
	if rec == nil {
		return
	}
	op := history.Op{Caller: "nemesis/" + string(run.Request.Action), Kind: history.OpNemesis, Target: run.Request.Member.Name, Scheduled: rec.Offset(run.Start),
		Start: rec.Offset(run.Start), End: rec.Offset(run.End), Value: run.Output, Outcome: history.OK}
	if run.Err != "" {
		op.Outcome, op.Err = history.Fail, run.Err
	}
	rec.Add(op)
}
