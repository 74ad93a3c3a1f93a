package xds

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/peer"
	_ "google.golang.org/grpc/xds" // registers the xds:/// resolver and the xDS balancers

	"sdchaos/childproc"
)

// clientCommand is the hidden sub-command of one xDS client. Its bootstrap
// comes from GRPC_XDS_BOOTSTRAP_CONFIG, which gRPC-Go reads once per
// process (internal/envconfig/xds.go), so each client is its own process.
const clientCommand = "__xds-client"

func init() { childproc.Register(clientCommand, clientMain) }

// clientArgs are one client's parameters.
type clientArgs struct {
	Service     string
	Rate        float64
	CallTimeout time.Duration
}

func (a clientArgs) argv() []string {
	return []string{"--service", a.Service, "--rate", fmt.Sprint(a.Rate), "--call-timeout", a.CallTimeout.String()}
}

func parseClientArgs(args []string) (clientArgs, error) {
	var a clientArgs
	fs := flag.NewFlagSet(clientCommand, flag.ContinueOnError)
	fs.StringVar(&a.Service, "service", "", "service name (xds:///<service>)")
	fs.Float64Var(&a.Rate, "rate", 0, "calls per second")
	fs.DurationVar(&a.CallTimeout, "call-timeout", 0, "deadline of one call")
	if err := fs.Parse(args); err != nil {
		return a, err
	}
	if a.Service == "" || a.Rate <= 0 || a.CallTimeout <= 0 {
		return a, fmt.Errorf("--service, a positive --rate and a positive --call-timeout are required")
	}
	return a, nil
}

// clientMain calls the instances' gRPC health service through
// xds:///<service> at a fixed rate until killed, one JSON line per call.
func clientMain(args []string) int {
	a, err := parseClientArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, clientCommand+":", err)
		return 2
	}
	conn, err := grpc.NewClient("xds:///"+a.Service, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Fprintln(os.Stderr, clientCommand+": creating the channel:", err)
		return 1
	}
	defer conn.Close()
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	callAtRate(ctx, healthpb.NewHealthClient(conn), a, json.NewEncoder(os.Stdout))
	return 0
}

// callAtRate starts one call per period, each on its own goroutine so a
// slow call does not delay the next, until ctx ends.
func callAtRate(ctx context.Context, hc healthpb.HealthClient, a clientArgs, enc *json.Encoder) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	defer wg.Wait()
	period := time.Duration(float64(time.Second) / a.Rate)
	next := time.Now()
	for ctx.Err() == nil {
		due := next
		wg.Add(1)
		go func() {
			defer wg.Done()
			line := call(hc, due, a.CallTimeout)
			mu.Lock()
			defer mu.Unlock()
			_ = enc.Encode(line)
		}()
		next = next.Add(period)
		sleep(ctx, time.Until(next))
	}
}

// call makes one health check and says where it went and how it ended.
func call(hc healthpb.HealthClient, due time.Time, timeout time.Duration) CallLine {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var p peer.Peer
	start := time.Now()
	resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Peer(&p))
	line := CallLine{Scheduled: &due, Start: start, End: time.Now(), Outcome: OutcomeOK}
	if p.Addr != nil {
		line.Target = p.Addr.String()
	}
	switch {
	case err != nil:
		line.Outcome, line.Err = OutcomeFail, err.Error()
	case resp.GetStatus() != healthpb.HealthCheckResponse_SERVING:
		line.Outcome, line.Err = OutcomeFail, "health status "+resp.GetStatus().String()
	}
	return line
}
