package scenarios

import (
	"flag"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"sdchaos/cluster"
	"sdchaos/rig"
	"sdchaos/worlds/etcd"
	"sdchaos/worlds/etcd/nemesis"
)

// ExternalFlags are the flags that point an etcd scenario at a cluster the
// harness did not start (offered by the scenarios of EtcdMembers).
type ExternalFlags struct {
	// Endpoints, Members, CACert, Cert, Key, User and Nemesis are the flags'
	// values as given; AllowRemote allows endpoints off the loopback range.
	Endpoints, Members, CACert, Cert, Key, User, Nemesis string
	AllowRemote                                          bool
}

// externalFlagNames are the external-mode flags (none is an experiment parameter).
var externalFlagNames = []string{"endpoints", "members", "cacert", "cert", "key", "user", "allow-remote", "nemesis"}

// MemberFault is a member fault a plan injects and the nemesis actions it
// needs on an external cluster.
type MemberFault struct {
	// Fault says what the plan does ("SIGKILL of every member").
	Fault string
	// Actions are the nemesis actions it runs (inject and heal).
	Actions []cluster.Action
}

// MemberFaulter is implemented by a Config whose plan injects member faults
// (kill, pause, isolate), so that an external run without the nemesis
// actions they need is refused before it starts.
type MemberFaulter interface {
	MemberFaults() []MemberFault
}

func bindExternal(fs *flag.FlagSet, x *ExternalFlags) {
	fs.StringVar(&x.Endpoints, "endpoints", "", "attach to an existing etcd cluster at these client `URLs` (comma-separated) instead of starting one")
	fs.StringVar(&x.Members, "members", "", "name each member of the external cluster and the client URL to use for it, as `name=URL,...` (default: the member list API)")
	fs.StringVar(&x.CACert, "cacert", "", "external cluster: CA bundle `file` to verify the members (as etcdctl)")
	fs.StringVar(&x.Cert, "cert", "", "external cluster: client certificate `file` (as etcdctl)")
	fs.StringVar(&x.Key, "key", "", "external cluster: client key `file` (as etcdctl)")
	fs.StringVar(&x.User, "user", "", "external cluster: `name:password` for etcd auth (as etcdctl)")
	fs.BoolVar(&x.AllowRemote, "allow-remote", false, "allow --endpoints/--members off the loopback range (a chaos tool must not reach production by accident)")
	fs.StringVar(&x.Nemesis, "nemesis", "", "external cluster: JSON `file` of commands that kill, start, pause, resume, isolate and heal its members")
}

// buildExternal validates the external-mode flags and returns the rig's
// External (nil when --endpoints and --members are not given).
func buildExternal(name string, x ExternalFlags, c Common, cfg Config) (*etcd.External, error) {
	if x.Endpoints == "" && x.Members == "" {
		if x.CACert+x.Cert+x.Key+x.User+x.Nemesis != "" || x.AllowRemote {
			return nil, Usagef("--cacert, --cert, --key, --user, --nemesis and --allow-remote need --endpoints (or --members)")
		}
		return nil, nil
	}
	if c.Net == rig.Private {
		return nil, Usagef("--net private and --endpoints exclude each other: packet faults act on members in the run's own namespace")
	}
	ext := &etcd.External{CACert: x.CACert, Cert: x.Cert, Key: x.Key, User: x.User}
	var err error
	if ext.Members, err = parseMembers(x.Members); err != nil {
		return nil, err
	}
	ext.Endpoints = splitList(x.Endpoints)
	if len(ext.Endpoints) == 0 {
		for _, m := range ext.Members {
			ext.Endpoints = append(ext.Endpoints, m.ClientURL)
		}
	}
	if err := checkURLs(ext, x.AllowRemote); err != nil {
		return nil, err
	}
	if x.User != "" && !strings.Contains(x.User, ":") {
		return nil, Usagef("--user %q: want name:password", x.User)
	}
	if x.Nemesis != "" {
		if ext.Nemesis, err = nemesis.Load(x.Nemesis); err != nil {
			return nil, Usagef("--nemesis: %v", err)
		}
	}
	return ext, checkNemesisCovers(name, cfg, ext.Nemesis)
}

// parseMembers parses "name=URL,...".
func parseMembers(s string) ([]cluster.Member, error) {
	var out []cluster.Member
	for _, p := range splitList(s) {
		name, u, ok := strings.Cut(p, "=")
		if !ok || name == "" || u == "" {
			return nil, Usagef("--members %q: want name=URL,...", p)
		}
		out = append(out, cluster.Member{Name: name, ClientURL: u})
	}
	return out, nil
}

// checkURLs requires http(s) URLs with a port, on loopback unless allowRemote.
func checkURLs(ext *etcd.External, allowRemote bool) error {
	urls := slices.Clone(ext.Endpoints)
	for _, m := range ext.Members {
		urls = append(urls, m.ClientURL)
	}
	for _, s := range urls {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Port() == "" {
			return Usagef("endpoint %q: want http://host:port or https://host:port", s)
		}
		tls := ext.CACert != "" || ext.Cert != ""
		if tls != (u.Scheme == "https") {
			return Usagef("endpoint %q: use https:// with --cacert/--cert and http:// without", s)
		}
		if !allowRemote && !loopback(u.Hostname()) {
			return Usagef("endpoint %q is not on the loopback range; add --allow-remote if you mean to inject faults there", s)
		}
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// checkNemesisCovers refuses an external run whose plan injects member
// faults the nemesis cannot perform.
func checkNemesisCovers(name string, cfg Config, f *nemesis.File) error {
	mf, ok := cfg.(MemberFaulter)
	if !ok {
		return nil
	}
	for _, fault := range mf.MemberFaults() {
		for _, a := range fault.Actions {
			switch {
			case f == nil:
				return Usagef("%s injects %s, which on an external cluster needs a nemesis with the actions %s: give --nemesis FILE (examples in examples/nemesis/)",
					name, fault.Fault, actionList(fault.Actions))
			case !f.Has(a):
				return Usagef("%s injects %s, which needs the nemesis action %q; %s does not define it", name, fault.Fault, a, f.Path)
			}
		}
	}
	return nil
}

func actionList(as []cluster.Action) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(s, " and ")
}
