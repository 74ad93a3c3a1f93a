package nacos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"sdchaos/caller"
)

// OpenAPISource reads a service's instance list the way a client without a subscription does:
// one request to Nacos's client open API per read (GET /nacos/v3/client/ns/instance/list,
// InstanceOpenApiController.list in naming/.../controllers/v3/InstanceOpenApiController.java:146,
// "get remote call service instance list"), through Addr (a Link's HTTP address, so that a
// blackholed link holds the request). Given a server list, a read tries the servers in turn
// from a random one, the first answer wins, as nacos-client's HTTP proxy does
// (NamingHttpClientProxy.reqApi, client/.../naming/remote/http/NamingHttpClientProxy.java:378-391
// at 486e198): a server that refuses or fails is passed over, one that holds the request keeps
// it until ctx ends. It lists the enabled instances, as the controller answers them
// (listInstance with healthyOnly false). It is a caller.Source.
type OpenAPISource struct {
	// Addr is the HTTP address (host:port) the request goes to, or a comma-separated server
	// list (Link.Addr of a cluster link).
	Addr string
	// Start picks the server a read tries first, in [0, n) (nil: the first).
	Start func(n int) int
	// Service is the service read (group DEFAULT_GROUP).
	Service string
	// Client sends the requests (a client of its own, so that Close drops its connections);
	// nil: http.DefaultClient.
	Client *http.Client
}

// openAPIAnswer is the open API's answer: code 0 and the instances in data.
type openAPIAnswer struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// List reads the list once, through the servers in turn until one answers; ctx bounds the
// whole read.
func (s OpenAPISource) List(ctx context.Context) ([]caller.Endpoint, error) {
	addrs := strings.Split(s.Addr, ",")
	i := 0
	if s.Start != nil && len(addrs) > 1 {
		i = s.Start(len(addrs))
	}
	var errs []error
	for range addrs {
		list, err := s.listFrom(ctx, addrs[i])
		if err == nil {
			return list, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", addrs[i], err))
		if ctx.Err() != nil {
			break
		}
		i = (i + 1) % len(addrs)
	}
	if len(errs) == 1 {
		return nil, errors.Unwrap(errs[0])
	}
	return nil, errors.Join(errs...)
}

// listFrom reads the list once from one server.
func (s OpenAPISource) listFrom(ctx context.Context, addr string) ([]caller.Endpoint, error) {
	q := url.Values{"serviceName": {s.Service}, "groupName": {Group}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/nacos/v3/client/ns/instance/list?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	c := s.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var a openAPIAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return nil, fmt.Errorf("the open API's answer (HTTP %d): %w", resp.StatusCode, err)
	}
	if a.Code != 0 {
		var reason string
		_ = json.Unmarshal(a.Data, &reason)
		if strings.HasSuffix(reason, "is not found!") {
			return nil, nil // the service has no instance left: an empty list, as the server says
		}
		return nil, fmt.Errorf("the open API: code %d %s: %s", a.Code, a.Message, reason)
	}
	var list []Instance
	if err := json.Unmarshal(a.Data, &list); err != nil {
		return nil, fmt.Errorf("the open API's instances: %w", err)
	}
	out := make([]caller.Endpoint, 0, len(list))
	for _, in := range list {
		if !in.Enabled {
			continue
		}
		addr := net.JoinHostPort(in.IP, strconv.Itoa(in.Port))
		out = append(out, caller.Endpoint{ID: addr, Addr: addr})
	}
	return out, nil
}
