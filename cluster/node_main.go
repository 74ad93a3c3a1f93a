package cluster

import (
	"flag"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"go.etcd.io/etcd/pkg/v3/featuregate"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/features"

	"sdchaos/childproc"
	"sdchaos/ports"
)

// nodeCommand is the hidden sub-command that hosts one embed.Etcd.
const nodeCommand = "__etcd-node"

func init() { childproc.Register(nodeCommand, nodeMain) }

// nodeArgs are the parameters of one node process.
type nodeArgs struct {
	name, host, dir, initialCluster, token, state string
	clientPort, peerPort                          int
	tickMs, electionMs                            uint
}

func (a nodeArgs) argv() []string {
	return []string{
		"--name", a.name, "--host", a.host, "--dir", a.dir, "--initial-cluster", a.initialCluster,
		"--token", a.token, "--state", a.state,
		"--client-port", fmt.Sprint(a.clientPort), "--peer-port", fmt.Sprint(a.peerPort),
		"--tick-ms", fmt.Sprint(a.tickMs), "--election-ms", fmt.Sprint(a.electionMs),
	}
}

func parseNodeArgs(args []string) (nodeArgs, error) {
	var a nodeArgs
	fs := flag.NewFlagSet(nodeCommand, flag.ContinueOnError)
	fs.StringVar(&a.name, "name", "", "member name")
	fs.StringVar(&a.host, "host", ports.Host, "address to listen on and advertise")
	fs.StringVar(&a.dir, "dir", "", "data dir")
	fs.StringVar(&a.initialCluster, "initial-cluster", "", "name=peerURL,...")
	fs.StringVar(&a.token, "token", "sdchaos", "initial cluster token")
	fs.StringVar(&a.state, "state", embed.ClusterStateFlagNew, "new or existing")
	fs.IntVar(&a.clientPort, "client-port", 0, "client port on --host")
	fs.IntVar(&a.peerPort, "peer-port", 0, "peer port on --host")
	fs.UintVar(&a.tickMs, "tick-ms", 100, "raft heartbeat interval")
	fs.UintVar(&a.electionMs, "election-ms", 1000, "raft election timeout")
	if err := fs.Parse(args); err != nil {
		return a, err
	}
	if a.name == "" || a.dir == "" || a.clientPort == 0 || a.peerPort == 0 {
		return a, fmt.Errorf("--name, --dir, --client-port and --peer-port are required")
	}
	return a, nil
}

func memberURL(host string, port int) url.URL {
	return url.URL{Scheme: "http", Host: net.JoinHostPort(host, strconv.Itoa(port))}
}

func (a nodeArgs) embedConfig() (*embed.Config, error) {
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = a.name, a.dir
	cfg.InitialCluster, cfg.InitialClusterToken, cfg.ClusterState = a.initialCluster, a.token, a.state
	cu, pu := memberURL(a.host, a.clientPort), memberURL(a.host, a.peerPort)
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.TickMs, cfg.ElectionMs = a.tickMs, a.electionMs
	cfg.LogOutputs = []string{"stderr"} // the harness sends our stderr to a log file
	cfg.LogLevel = "info"
	if err := bindPeerDials(cfg, a.host); err != nil {
		return nil, err
	}
	return cfg, nil
}

// bindPeerDials makes a member on a non-loopback address bind its outgoing
// peer connections to it (etcd's feature gate SetMemberLocalAddr, which
// ignores loopback addresses), so that a packet between two members names
// both; on a loopback address it does nothing.
func bindPeerDials(cfg *embed.Config, host string) error {
	if a, err := netip.ParseAddr(host); err != nil || a.IsLoopback() {
		return nil
	}
	mfg, ok := cfg.ServerFeatureGate.(featuregate.MutableFeatureGate)
	if !ok {
		return fmt.Errorf("etcd's feature gates cannot be set (%T)", cfg.ServerFeatureGate)
	}
	if err := mfg.Set(string(features.SetMemberLocalAddr) + "=true"); err != nil {
		return fmt.Errorf("enabling etcd's %s: %w", features.SetMemberLocalAddr, err)
	}
	return nil
}

// nodeMain runs one etcd member until it is killed or told to stop.
func nodeMain(args []string) int {
	a, err := parseNodeArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, nodeCommand+":", err)
		return 2
	}
	cfg, err := a.embedConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, nodeCommand+": configuring etcd:", err)
		return 2
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, nodeCommand+": starting etcd:", err)
		return 1
	}
	defer e.Close()
	go childproc.Serve(newControl(e).handle)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	select {
	case err := <-e.Err():
		fmt.Fprintln(os.Stderr, nodeCommand+": etcd stopped:", err)
		return 1
	case <-term:
		done := make(chan struct{})
		go func() { e.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		return 0
	}
}
