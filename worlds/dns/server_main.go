package dns

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/coredns/caddy"
	"github.com/coredns/coredns/core/dnsserver"

	// The only plugins the server is built with (see Plugins).
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/etcd"
	_ "github.com/coredns/coredns/plugin/forward"

	"sdchaos/childproc"
)

// serverCommand is the hidden sub-command that runs one CoreDNS server.
const serverCommand = "__coredns"

func init() { childproc.Register(serverCommand, serverMain) }

// serverMain runs CoreDNS on the Corefile named by --corefile until it is
// killed or sent SIGTERM/SIGINT.
func serverMain(args []string) int {
	fs := flag.NewFlagSet(serverCommand, flag.ContinueOnError)
	path := fs.String("corefile", "", "the Corefile to serve")
	if err := fs.Parse(args); err != nil || *path == "" {
		fmt.Fprintln(os.Stderr, serverCommand+": --corefile is required")
		return 2
	}
	inst, err := startCoreDNS(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, serverCommand+":", err)
		return 1
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	stopped := make(chan struct{})
	go func() { inst.Wait(); close(stopped) }()
	select {
	case <-term:
		err := errors.Join(errors.Join(inst.ShutdownCallbacks()...), inst.Stop())
		if err != nil {
			fmt.Fprintln(os.Stderr, serverCommand+": stopping:", err)
			return 1
		}
		return 0
	case <-stopped:
		fmt.Fprintln(os.Stderr, serverCommand+": CoreDNS stopped by itself")
		return 1
	}
}

// startCoreDNS embeds CoreDNS as core/dnsserver/example_test.go does:
// the directives limited to Plugins, Register, caddy.Start.
func startCoreDNS(path string) (*caddy.Instance, error) {
	contents, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the Corefile: %w", err)
	}
	if err := dnsserver.SetDirectives(Plugins); err != nil {
		return nil, fmt.Errorf("setting the directives: %w", err)
	}
	if err := dnsserver.Register(); err != nil {
		return nil, fmt.Errorf("registering the dns server type: %w", err)
	}
	v, from := Version()
	fmt.Printf("CoreDNS %s (from %s), plugins %v, Corefile %s:\n%s", v, from, Plugins, path, contents)
	inst, err := caddy.Start(caddy.CaddyfileInput{Filepath: path, Contents: contents, ServerTypeName: "dns"})
	if err != nil {
		return nil, fmt.Errorf("starting CoreDNS: %w", err)
	}
	return inst, nil
}
