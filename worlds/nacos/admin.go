package nacos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// CreateService creates service on the server at addr with its protectThreshold (POST
// /nacos/v3/admin/ns/service, ServiceControllerV3.create): ephemeral false makes a persistent
// service, whose instances the server health-checks itself (TCP to the instance's port, the
// cluster's default checker).
func CreateService(ctx context.Context, addr, service string, ephemeral bool, protectThreshold float64) error {
	v := url.Values{"namespaceId": {"public"}, "groupName": {Group}, "serviceName": {service},
		"ephemeral": {strconv.FormatBool(ephemeral)}, "protectThreshold": {strconv.FormatFloat(protectThreshold, 'f', -1, 64)}}
	if err := postForm(ctx, "http://"+addr+"/nacos/v3/admin/ns/service", v); err != nil {
		return fmt.Errorf("creating service %s (protectThreshold %g): %w", service, protectThreshold, err)
	}
	return nil
}

// RegisterPersistent registers 127.0.0.1:port as a persistent, healthy instance of service
// (weight 1) through the server's admin API (POST /nacos/v3/admin/ns/instance,
// InstanceControllerV3.register): no client holds it; the server keeps it until deregistered
// and marks it unhealthy when its health check fails.
func RegisterPersistent(ctx context.Context, addr, service string, port int) error {
	v := url.Values{"namespaceId": {"public"}, "groupName": {Group}, "serviceName": {service}, "ip": {"127.0.0.1"},
		"port": {strconv.Itoa(port)}, "ephemeral": {"false"}, "healthy": {"true"}, "enabled": {"true"}, "weight": {"1"}}
	if err := postForm(ctx, "http://"+addr+"/nacos/v3/admin/ns/instance", v); err != nil {
		return fmt.Errorf("registering persistent 127.0.0.1:%d of %s: %w", port, service, err)
	}
	return nil
}

// postForm posts v and checks the v3 API's result code.
func postForm(ctx context.Context, u string, v url.Values) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(v.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r result[json.RawMessage]
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("HTTP %d, decoding: %w", resp.StatusCode, err)
	}
	if r.Code != 0 {
		return fmt.Errorf("code %d %s", r.Code, r.Message)
	}
	return nil
}
