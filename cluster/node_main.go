package cluster

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"

	"sdchaos/childproc"
)

// nodeCommand is the hidden sub-command that hosts one embed.Etcd.
const nodeCommand = "__etcd-node"

func init() { childproc.Register(nodeCommand, nodeMain) }

// nodeArgs are the parameters of one node process.
type nodeArgs struct {
	name, dir, initialCluster, token, state string
	clientPort, peerPort                    int
	tickMs, electionMs                      uint
}

func (a nodeArgs) argv() []string {
	return []string{
		"--name", a.name, "--dir", a.dir, "--initial-cluster", a.initialCluster,
		"--token", a.token, "--state", a.state,
		"--client-port", fmt.Sprint(a.clientPort), "--peer-port", fmt.Sprint(a.peerPort),
		"--tick-ms", fmt.Sprint(a.tickMs), "--election-ms", fmt.Sprint(a.electionMs),
	}
}

func parseNodeArgs(args []string) (nodeArgs, error) {
	var a nodeArgs
	fs := flag.NewFlagSet(nodeCommand, flag.ContinueOnError)
	fs.StringVar(&a.name, "name", "", "member name")
	fs.StringVar(&a.dir, "dir", "", "data dir")
	fs.StringVar(&a.initialCluster, "initial-cluster", "", "name=peerURL,...")
	fs.StringVar(&a.token, "token", "sdchaos", "initial cluster token")
	fs.StringVar(&a.state, "state", embed.ClusterStateFlagNew, "new or existing")
	fs.IntVar(&a.clientPort, "client-port", 0, "client port on 127.0.0.1")
	fs.IntVar(&a.peerPort, "peer-port", 0, "peer port on 127.0.0.1")
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

func loopbackURL(port int) url.URL {
	return url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)}
}

func (a nodeArgs) embedConfig() *embed.Config {
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = a.name, a.dir
	cfg.InitialCluster, cfg.InitialClusterToken, cfg.ClusterState = a.initialCluster, a.token, a.state
	cu, pu := loopbackURL(a.clientPort), loopbackURL(a.peerPort)
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.TickMs, cfg.ElectionMs = a.tickMs, a.electionMs
	cfg.LogOutputs = []string{"stderr"} // the harness sends our stderr to a log file
	cfg.LogLevel = "info"
	return cfg
}

// nodeMain runs one etcd member until it is killed or told to stop.
func nodeMain(args []string) int {
	a, err := parseNodeArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, nodeCommand+":", err)
		return 2
	}
	e, err := embed.StartEtcd(a.embedConfig())
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
