package xds

import (
	"errors"
	"flag"
	"fmt"
	"strings"
)

// controlPlaneArgs are the parameters of one control-plane process.
type controlPlaneArgs struct {
	Port int
	Etcd []string
	Set  ControlPlaneSettings
}

func (a controlPlaneArgs) argv() []string {
	return []string{"--port", fmt.Sprint(a.Port), "--etcd", strings.Join(a.Etcd, ","),
		"--service", a.Set.Service, "--on-watch-fail", a.Set.OnWatchFail.String(),
		"--start", a.Set.Start.String(), "--hold", a.Set.Hold.String(),
		"--poll", a.Set.Poll.String(), "--read-timeout", a.Set.ReadTimeout.String()}
}

func parseControlPlaneArgs(args []string) (controlPlaneArgs, error) {
	var a controlPlaneArgs
	var etcd, fail, start string
	fs := flag.NewFlagSet(controlPlaneCommand, flag.ContinueOnError)
	fs.IntVar(&a.Port, "port", 0, "ADS port on 127.0.0.1")
	fs.StringVar(&etcd, "etcd", "", "etcd client URLs, comma-separated")
	fs.StringVar(&a.Set.Service, "service", "", "service name")
	fs.StringVar(&fail, "on-watch-fail", KeepLast.String(), "keep or clear")
	fs.StringVar(&start, "start", FromRegistry.String(), "registry, empty, partial or none")
	fs.DurationVar(&a.Set.Hold, "hold", 0, "how long the start snapshot is served (0: until told to follow)")
	fs.DurationVar(&a.Set.Poll, "poll", 0, "liveness read period")
	fs.DurationVar(&a.Set.ReadTimeout, "read-timeout", 0, "registry read deadline")
	if err := fs.Parse(args); err != nil {
		return a, err
	}
	var err1, err2 error
	a.Set.OnWatchFail, err1 = ParseWatchFailPolicy(fail)
	a.Set.Start, err2 = ParseStartSnapshot(start)
	if err := errors.Join(err1, err2); err != nil {
		return a, err
	}
	if etcd != "" {
		a.Etcd = strings.Split(etcd, ",")
	}
	if a.Port == 0 || len(a.Etcd) == 0 {
		return a, fmt.Errorf("--port and --etcd are required")
	}
	return a, a.Set.Validate()
}
