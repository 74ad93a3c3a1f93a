package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// nacosLister reads Nacos's client open API (Nacos 3):
// GET http://{server}/nacos/v3/client/ns/instance/list?namespaceId=…&groupName=…&serviceName=…,
// trying the servers of SDCHAOS_ENDPOINTS in turn; it keeps the enabled,
// healthy instances.
type nacosLister struct {
	servers []string
	query   string
	hc      *http.Client
}

func newNacosLister(servers []string) (lister, error) {
	q := url.Values{"namespaceId": {os.Getenv("SDCHAOS_NAMESPACE")}, "groupName": {os.Getenv("SDCHAOS_GROUP")},
		"serviceName": {os.Getenv("SDCHAOS_SERVICE")}}
	return &nacosLister{servers: servers, query: q.Encode(), hc: &http.Client{}}, nil
}

// nacosAnswer is the open API's answer: code 0 and the instances in data.
type nacosAnswer struct {
	Code int             `json:"code"`
	Data json.RawMessage `json:"data"`
}

type nacosInstance struct {
	IP      string `json:"ip"`
	Port    int    `json:"port"`
	Healthy bool   `json:"healthy"`
	Enabled bool   `json:"enabled"`
}

func (n *nacosLister) list(ctx context.Context) ([]string, error) {
	var last error
	for _, s := range n.servers {
		addrs, err := n.listOn(ctx, s)
		if err == nil {
			return addrs, nil
		}
		last = err
	}
	return nil, last
}

func (n *nacosLister) listOn(ctx context.Context, server string) ([]string, error) {
	var a nacosAnswer
	if err := getJSON(ctx, n.hc, "http://"+server+"/nacos/v3/client/ns/instance/list?"+n.query, &a); err != nil {
		return nil, err
	}
	if a.Code != 0 {
		if strings.Contains(string(a.Data), "not found") {
			return nil, nil // no instance left: the service is gone
		}
		return nil, fmt.Errorf("nacos %s: code %d: %s", server, a.Code, a.Data)
	}
	var ins []nacosInstance
	if err := json.Unmarshal(a.Data, &ins); err != nil {
		return nil, fmt.Errorf("nacos %s: the instances: %w", server, err)
	}
	addrs := make([]string, 0, len(ins))
	for _, in := range ins {
		if in.Enabled && in.Healthy {
			addrs = append(addrs, net.JoinHostPort(in.IP, strconv.Itoa(in.Port)))
		}
	}
	return addrs, nil
}

func (n *nacosLister) close() { n.hc.CloseIdleConnections() }

// getJSON GETs u and decodes its JSON body into v (any status: the caller
// judges the answer).
func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("%s: HTTP %d: %w", u, resp.StatusCode, err)
	}
	return nil
}
