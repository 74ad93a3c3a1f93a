package dns

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestCorefile(t *testing.T) {
	eps := []string{"http://127.0.0.1:9150", "http://127.0.0.1:9152"}
	zero, ten := time.Duration(0), 10*time.Second
	cases := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"etcd alone", ServerConfig{Zone: DefaultZone, Etcd: &Backend{Endpoints: eps}},
			"skydns.local.:9200 {\n\tbind 127.0.0.1\n\terrors\n\tetcd skydns.local. {\n\t\tpath /skydns\n" +
				"\t\tendpoint http://127.0.0.1:9150 http://127.0.0.1:9152\n\t}\n}\n"},
		{"plain cache, lease floor", ServerConfig{Zone: DefaultZone, Etcd: &Backend{Endpoints: eps[:1], Path: "/x", MinLeaseTTL: 2 * time.Second},
			Cache: &Cache{MaxTTL: 30 * time.Second}},
			"skydns.local.:9200 {\n\tbind 127.0.0.1\n\terrors\n\tcache 30 skydns.local.\n\tetcd skydns.local. {\n\t\tpath /x\n" +
				"\t\tendpoint http://127.0.0.1:9150\n\t\tmin-lease-ttl 2\n\t}\n}\n"},
		{"serve_stale defaults", ServerConfig{Zone: DefaultZone, Etcd: &Backend{Endpoints: eps[:1]}, Cache: &Cache{ServeStale: &ServeStale{}}},
			"\tcache skydns.local. {\n\t\tserve_stale 1h0m0s immediate\n\t}\n"},
		{"verify, servfail off", ServerConfig{Zone: DefaultZone, Etcd: &Backend{Endpoints: eps[:1]},
			Cache: &Cache{ServeStale: &ServeStale{For: time.Minute, Mode: StaleVerify}, ServFail: &zero}},
			"\t\tserve_stale 1m0s verify\n\t\tservfail 0s\n\t}\n"},
		{"node-local layer", ServerConfig{Zone: DefaultZone, Forward: netip.MustParseAddrPort("127.0.0.1:9300"),
			Cache: &Cache{ServFail: &ten}},
			"skydns.local.:9200 {\n\tbind 127.0.0.1\n\terrors\n\tcache skydns.local. {\n\t\tservfail 10s\n\t}\n" +
				"\tforward skydns.local. 127.0.0.1:9300\n}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := c.cfg.Corefile(9200); !strings.Contains(got, c.want) {
				t.Errorf("Corefile:\n%s\nwant it to contain:\n%s", got, c.want)
			}
		})
	}
}

func TestValidateRejects(t *testing.T) {
	eps := []string{"http://127.0.0.1:9150"}
	neg, long := -time.Second, 6*time.Minute
	cases := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"zone not qualified", ServerConfig{Zone: "skydns.local", Etcd: &Backend{Endpoints: eps}}, "fully qualified"},
		{"no backend", ServerConfig{Zone: DefaultZone}, "exactly one"},
		{"both backends", ServerConfig{Zone: DefaultZone, Etcd: &Backend{Endpoints: eps},
			Forward: netip.MustParseAddrPort("127.0.0.1:9300")}, "exactly one"},
		{"forward off loopback", ServerConfig{Zone: DefaultZone, Forward: netip.MustParseAddrPort("10.0.0.1:53")}, "loopback"},
		{"no endpoints", ServerConfig{Zone: DefaultZone, Etcd: &Backend{}}, "no endpoints"},
		{"lease floor fraction", ServerConfig{Zone: DefaultZone, Etcd: &Backend{Endpoints: eps, MinLeaseTTL: 1500 * time.Millisecond}}, "min-lease-ttl"},
		{"cache ttl fraction", ServerConfig{Zone: DefaultZone, Etcd: &Backend{Endpoints: eps}, Cache: &Cache{MaxTTL: time.Millisecond}}, "cache TTL"},
		{"servfail negative", ServerConfig{Zone: DefaultZone, Etcd: &Backend{Endpoints: eps}, Cache: &Cache{ServFail: &neg}}, "servfail"},
		{"servfail too long", ServerConfig{Zone: DefaultZone, Etcd: &Backend{Endpoints: eps}, Cache: &Cache{ServFail: &long}}, "servfail"},
		{"stale mode", ServerConfig{Zone: DefaultZone, Etcd: &Backend{Endpoints: eps},
			Cache: &Cache{ServeStale: &ServeStale{Mode: "later"}}}, "serve_stale mode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate() = %v, want an error containing %q", err, c.want)
			}
		})
	}
}
