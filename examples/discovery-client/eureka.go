package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
)

// eurekaLister reads Eureka's REST API: GET {service URL}apps/{SDCHAOS_APP}
// with Accept: application/json, trying the service URLs of
// SDCHAOS_ENDPOINTS in turn; it keeps the instances whose status is UP.
type eurekaLister struct {
	urls []string
	app  string
	hc   *http.Client
}

func newEurekaLister(urls []string) (lister, error) {
	return &eurekaLister{urls: urls, app: os.Getenv("SDCHAOS_APP"), hc: &http.Client{}}, nil
}

// eurekaApp is the answer to GET apps/APP; a lone instance may be an object
// rather than a list.
type eurekaApp struct {
	Application struct {
		Instance json.RawMessage `json:"instance"`
	} `json:"application"`
}

type eurekaInstance struct {
	IPAddr string `json:"ipAddr"`
	Status string `json:"status"`
	Port   struct {
		N json.Number `json:"$"`
	} `json:"port"`
}

func (e *eurekaLister) list(ctx context.Context) ([]string, error) {
	var last error
	for _, u := range e.urls {
		addrs, err := e.listOn(ctx, u)
		if err == nil {
			return addrs, nil
		}
		last = err
	}
	return nil, last
}

func (e *eurekaLister) listOn(ctx context.Context, serviceURL string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, serviceURL+"apps/"+e.app, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := e.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNotFound:
		return nil, nil // the app has no instance there
	case http.StatusOK:
	default:
		return nil, fmt.Errorf("eureka %s: HTTP %d", serviceURL, resp.StatusCode)
	}
	var a eurekaApp
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return nil, fmt.Errorf("eureka %s: %w", serviceURL, err)
	}
	return upInstances(a.Application.Instance)
}

// upInstances decodes the instance list (or lone instance) and returns the
// UP ones' ipAddr:port.
func upInstances(raw json.RawMessage) ([]string, error) {
	var ins []eurekaInstance
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '{':
		ins = make([]eurekaInstance, 1)
		if err := json.Unmarshal(raw, &ins[0]); err != nil {
			return nil, err
		}
	default:
		if err := json.Unmarshal(raw, &ins); err != nil {
			return nil, err
		}
	}
	addrs := make([]string, 0, len(ins))
	for _, in := range ins {
		if in.Status == "UP" {
			addrs = append(addrs, net.JoinHostPort(in.IPAddr, in.Port.N.String()))
		}
	}
	return addrs, nil
}

func (e *eurekaLister) close() { e.hc.CloseIdleConnections() }
