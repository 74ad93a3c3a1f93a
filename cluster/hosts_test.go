package cluster

import (
	"strings"
	"testing"
)

func TestConfigHosts(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Validate(); err != nil || cfg.host(2) != "127.0.0.1" {
		t.Errorf("no hosts: err %v, host(2) = %q, want 127.0.0.1", err, cfg.host(2))
	}
	cfg.Hosts = []string{"198.18.0.1", "198.18.0.2", "198.18.0.3"}
	if err := cfg.Validate(); err != nil || cfg.host(2) != "198.18.0.3" {
		t.Errorf("three hosts: err %v, host(2) = %q", err, cfg.host(2))
	}
	for hosts, want := range map[string]string{
		"198.18.0.1,198.18.0.2":            "one per member",
		"198.18.0.1,198.18.0.2,n3":         `"n3" is not an IPv4`,
		"198.18.0.1,198.18.0.2,::1":        `"::1" is not an IPv4`,
		"198.18.0.1,198.18.0.2,198.18.0.3": "",
	} {
		cfg.Hosts = strings.Split(hosts, ",")
		err := cfg.Validate()
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("hosts %s: err = %v, want %q", hosts, err, want)
		}
	}
}

// TestPeerDialsBoundToNonLoopbackHosts checks what etcd will use as the
// local address of its peer connections: the member's own address when it
// is not a loopback one, none (the kernel's choice, 127.0.0.1) otherwise.
func TestPeerDialsBoundToNonLoopbackHosts(t *testing.T) {
	for host, want := range map[string]string{"198.18.0.2": "198.18.0.2", "127.0.0.2": "", "127.0.0.1": ""} {
		a := nodeArgs{name: "n2", host: host, dir: t.TempDir(), state: "new", token: "t", tickMs: 100, electionMs: 1000,
			clientPort: 9401, peerPort: 9402, initialCluster: "n2=http://" + host + ":9402"}
		cfg, err := a.embedConfig()
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.Validate(); err != nil { // also sets up its logger
			t.Fatal(err)
		}
		if got := cfg.InferLocalAddr(); got != want {
			t.Errorf("host %s: peer dials from %q, want %q", host, got, want)
		}
		if got := cfg.AdvertisePeerUrls[0].Host; got != host+":9402" {
			t.Errorf("host %s: advertised peer URL %s", host, got)
		}
	}
}
