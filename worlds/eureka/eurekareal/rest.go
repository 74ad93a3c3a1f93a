package eurekareal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Instance is what a worker registers: Eureka's InstanceInfo with the
// fields ApplicationResource.addInstance requires (instanceId, hostName,
// ipAddr, app, dataCenterInfo with a name) plus its port and lease.
type Instance struct {
	App, ID string
	// Host and Port are where the instance answers.
	Host string
	Port int
	// RenewSecs and DurationSecs are its leaseInfo (whole seconds).
	RenewSecs, DurationSecs int
	// DirtyMS is lastDirtyTimestamp (epoch ms), sent with every heartbeat.
	DirtyMS int64
}

// body returns the registration JSON ({"instance":{…}}) in the codec the
// server's Jersey resources read (EurekaJacksonCodec).
func (in Instance) body() ([]byte, error) {
	type port struct {
		N       int    `json:"$"`
		Enabled string `json:"@enabled"`
	}
	type dc struct {
		Class string `json:"@class"`
		Name  string `json:"name"`
	}
	type lease struct {
		Renew    int `json:"renewalIntervalInSecs"`
		Duration int `json:"durationInSecs"`
	}
	m := map[string]any{
		"instanceId": in.ID, "hostName": in.Host, "app": in.App, "ipAddr": in.Host, "status": "UP",
		"port": port{in.Port, "true"}, "securePort": port{443, "false"}, "vipAddress": strings.ToLower(in.App),
		"dataCenterInfo":     dc{"com.netflix.appinfo.InstanceInfo$DefaultDataCenterInfo", "MyOwn"},
		"leaseInfo":          lease{in.RenewSecs, in.DurationSecs},
		"lastDirtyTimestamp": strconv.FormatInt(in.DirtyMS, 10),
	}
	return json.Marshal(map[string]any{"instance": m})
}

// rest makes Eureka REST calls on one service URL ("http://…/eureka/").
type rest struct{ httpc *http.Client }

// register is POST apps/APP (204 on success).
func (r rest) register(ctx context.Context, service string, in Instance) (int, error) {
	body, err := in.body()
	if err != nil {
		return 0, err
	}
	return r.do(ctx, http.MethodPost, service+"apps/"+in.App, body)
}

// renew is PUT apps/APP/ID?status=UP&lastDirtyTimestamp=… (200; 404 when
// the server does not hold the lease).
func (r rest) renew(ctx context.Context, service string, in Instance) (int, error) {
	q := url.Values{"status": {"UP"}, "lastDirtyTimestamp": {strconv.FormatInt(in.DirtyMS, 10)}}
	return r.do(ctx, http.MethodPut, service+"apps/"+in.App+"/"+in.ID+"?"+q.Encode(), nil)
}

// cancel is DELETE apps/APP/ID (200; 404 when unknown).
func (r rest) cancel(ctx context.Context, service, app, id string) (int, error) {
	return r.do(ctx, http.MethodDelete, service+"apps/"+app+"/"+id, nil)
}

func (r rest) do(ctx context.Context, method, u string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.httpc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// expect turns an unexpected status into an error.
func expect(what string, status int, err error, want ...int) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	for _, w := range want {
		if status == w {
			return nil
		}
	}
	return fmt.Errorf("%s: status %d", what, status)
}
