package nacos

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/nacos-group/nacos-sdk-go/v2/clients/naming_client"
	"github.com/nacos-group/nacos-sdk-go/v2/vo"

	"sdchaos/ports"
)

// Endpoint is a service instance's own server: HTTP on 127.0.0.1 answering 200 to GET /.
type Endpoint struct {
	srv  *http.Server
	port int
}

// StartEndpoint listens on a port from alloc and serves until Close.
func StartEndpoint(alloc *ports.Allocator, name string) (*Endpoint, error) {
	port, err := alloc.Take(name)
	if err != nil {
		return nil, fmt.Errorf("starting instance %s: %w", name, err)
	}
	ln, err := net.Listen("tcp", ports.Addr(port))
	if err != nil {
		return nil, fmt.Errorf("starting instance %s: %w", name, err)
	}
	e := &Endpoint{port: port, srv: &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) }),
		ReadHeaderTimeout: 5 * time.Second,
	}}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// Port returns the endpoint's port.
func (e *Endpoint) Port() int { return e.port }

// Addr returns 127.0.0.1:<port>.
func (e *Endpoint) Addr() string { return ports.Addr(e.port) }

// Close stops serving (open connections are closed).
func (e *Endpoint) Close() error { return e.srv.Close() }

// Registrant is one ephemeral instance registered by its own nacos-sdk-go client (its own gRPC
// connection): the server keeps it while that connection lives.
type Registrant struct {
	client    naming_client.INamingClient
	service   string
	ep        *Endpoint
	closeOnce sync.Once
}

// registerPatience bounds Register's retries: the SDK's client may not be connected yet when
// NewClient returns (its start-up tries end after three server checks of 3 s each), and on a
// loaded machine the first connection can take longer.
const registerPatience = 30 * time.Second

// Register creates a client with o and registers ep as an ephemeral, healthy instance of
// service (weight 1, group DEFAULT_GROUP), retrying every 500 ms for up to 30 s while the
// client is not connected.
func Register(o ClientOptions, service string, ep *Endpoint) (*Registrant, error) {
	c, err := NewClient(o)
	if err != nil {
		return nil, fmt.Errorf("registering %s of %s: %w", ep.Addr(), service, err)
	}
	r := &Registrant{client: c, service: service, ep: ep}
	deadline := time.Now().Add(registerPatience)
	for {
		err := r.Reregister()
		if err == nil {
			return r, nil
		}
		if time.Now().After(deadline) {
			c.CloseClient()
			return nil, fmt.Errorf("%w (retried for %s)", err, registerPatience)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Reregister registers the instance (again) on the client's connection.
func (r *Registrant) Reregister() error {
	ok, err := r.client.RegisterInstance(vo.RegisterInstanceParam{Ip: "127.0.0.1", Port: uint64(r.ep.Port()), Weight: 1,
		Enable: true, Healthy: true, Ephemeral: true, ServiceName: r.service, GroupName: Group})
	if err == nil && !ok {
		err = errors.New("the server said no")
	}
	if err != nil {
		return fmt.Errorf("registering %s of %s: %w", r.ep.Addr(), r.service, err)
	}
	return nil
}

// Endpoint returns the registered endpoint.
func (r *Registrant) Endpoint() *Endpoint { return r.ep }

// Deregister removes the instance explicitly (the client stays connected).
func (r *Registrant) Deregister() error {
	_, err := r.client.DeregisterInstance(vo.DeregisterInstanceParam{Ip: "127.0.0.1", Port: uint64(r.ep.Port()),
		ServiceName: r.service, GroupName: Group, Ephemeral: true})
	if err != nil {
		return fmt.Errorf("deregistering %s of %s: %w", r.ep.Addr(), r.service, err)
	}
	return nil
}

// Close closes the client (its connection ends, so the server drops the instance) and the
// endpoint; only the first call does.
func (r *Registrant) Close() {
	r.closeOnce.Do(func() {
		r.client.CloseClient()
		_ = r.ep.Close()
	})
}
