package caller

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync"
)

// EurekaTries is how many servers one list tries at most: the attempts of
// Netflix's RetryableEurekaHttpClient (DEFAULT_NUMBER_OF_RETRIES = 3).
const EurekaTries = 3

// EurekaSource lists an application's instances through Eureka's REST API,
// GET {service URL}apps/{APP} in JSON, as a REST reader of the registry
// does: it sticks to the last server that answered and moves to the next
// one of its list when a request fails (refused, timed out, a status other
// than 200 or 404), at most EurekaTries servers per list. An app the
// server does not know (404) lists nothing; only instances whose status is
// UP are listed, as the Java client filters by default
// (shouldFilterOnlyUpInstances). The caller's deadline bounds the list.
type EurekaSource struct {
	servers []string
	app     string
	httpc   *http.Client

	mu     sync.Mutex
	sticky int
}

// NewEurekaSource returns a source listing app on servers (service URLs,
// "http://127.0.0.1:9650/eureka/"), in that order.
func NewEurekaSource(servers []string, app string) *EurekaSource {
	tr := &http.Transport{MaxIdleConnsPerHost: 2, DialContext: (&net.Dialer{}).DialContext}
	return &EurekaSource{servers: servers, app: app, httpc: &http.Client{Transport: tr}}
}

// List reads the app's instances from the sticky server, failing over.
func (s *EurekaSource) List(ctx context.Context) ([]Endpoint, error) {
	if len(s.servers) == 0 {
		return nil, errors.New("listing eureka: no server")
	}
	var last error
	for range min(EurekaTries, len(s.servers)) {
		s.mu.Lock()
		server := s.servers[s.sticky]
		s.mu.Unlock()
		eps, err := s.get(ctx, server)
		if err == nil {
			return eps, nil
		}
		last = err
		s.mu.Lock()
		if s.servers[s.sticky] == server {
			s.sticky = (s.sticky + 1) % len(s.servers)
		}
		s.mu.Unlock()
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("listing %s on eureka: %w", s.app, last)
}

// Close releases idle connections.
func (s *EurekaSource) Close() { s.httpc.CloseIdleConnections() }

// get is one GET apps/APP on server.
func (s *EurekaSource) get(ctx context.Context, server string) ([]Endpoint, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"apps/"+s.app, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.httpc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: reading the answer: %w", server, err)
	case resp.StatusCode == http.StatusNotFound:
		return []Endpoint{}, nil // no instance of the app is registered there
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s: status %d", server, resp.StatusCode)
	}
	eps, err := DecodeEurekaApp(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", server, err)
	}
	return eps, nil
}

// eurekaInstance is the part of Eureka's InstanceInfo JSON a caller needs.
type eurekaInstance struct {
	InstanceID string `json:"instanceId"`
	HostName   string `json:"hostName"`
	IPAddr     string `json:"ipAddr"`
	Status     string `json:"status"`
	Port       struct {
		N json.Number `json:"$"`
	} `json:"port"`
}

// DecodeEurekaApp decodes the answer to GET apps/APP
// ({"application":{"name":…,"instance":[…]}}; a lone instance may be an
// object rather than a list) into its UP instances, sorted by id.
func DecodeEurekaApp(body []byte) ([]Endpoint, error) {
	var doc struct {
		Application struct {
			Instance json.RawMessage `json:"instance"`
		} `json:"application"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("decoding the application: %w", err)
	}
	var ins []eurekaInstance
	raw := bytes.TrimSpace(doc.Application.Instance)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '{':
		ins = make([]eurekaInstance, 1)
		if err := json.Unmarshal(raw, &ins[0]); err != nil {
			return nil, fmt.Errorf("decoding the instance: %w", err)
		}
	default:
		if err := json.Unmarshal(raw, &ins); err != nil {
			return nil, fmt.Errorf("decoding the instances: %w", err)
		}
	}
	return upEndpoints(ins)
}

// upEndpoints are the UP instances as endpoints (ipAddr:port), sorted by id.
func upEndpoints(ins []eurekaInstance) ([]Endpoint, error) {
	out := make([]Endpoint, 0, len(ins))
	for _, in := range ins {
		if in.Status != "UP" {
			continue
		}
		port, err := strconv.Atoi(in.Port.N.String())
		if err != nil {
			return nil, fmt.Errorf("instance %q: port %q: %w", in.InstanceID, in.Port.N, err)
		}
		host := in.IPAddr
		if host == "" {
			host = in.HostName
		}
		id := in.InstanceID
		if id == "" {
			id = host + ":" + strconv.Itoa(port)
		}
		out = append(out, Endpoint{ID: id, Addr: net.JoinHostPort(host, strconv.Itoa(port))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
