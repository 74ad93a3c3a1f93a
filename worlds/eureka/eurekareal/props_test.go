package eurekareal

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sdchaos/worlds/eureka/eurekamodel"
)

func TestServerArgsNameEveryProperty(t *testing.T) {
	args, err := scaledProps().ServerArgs()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--eureka.server.eviction-interval-timer-in-ms=1000",
		"--eureka.server.expected-client-renewal-interval-seconds=1", "--eureka.client.registry-fetch-interval-seconds=1",
		"--eureka.server.renewal-threshold-update-interval-ms=900000", "--eureka.server.enable-self-preservation=true",
		"--eureka.server.peer-node-read-timeout-ms=1000", "--eureka.instance.registry.default-open-for-traffic-count=1"} {
		if !slices.Contains(args, want) {
			t.Errorf("ServerArgs lacks %s: %v", want, args)
		}
	}
}

func TestUnexpressibleValuesNameTheProperty(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Props)
		want string
	}{
		{"fractional renewal", func(p *Props) { p.RenewInterval = 1500 * time.Millisecond }, "leaseInfo.renewalIntervalInSecs"},
		{"sub-second lease", func(p *Props) { p.LeaseDuration = 500 * time.Millisecond }, "leaseInfo.durationInSecs"},
		{"fractional expected renewal", func(p *Props) { p.ExpectedRenewInterval = 2500 * time.Millisecond },
			"expected-client-renewal-interval-seconds"},
		{"sub-ms eviction", func(p *Props) { p.EvictionInterval = 100 * time.Microsecond }, "eviction-interval-timer-in-ms"},
		{"fetch", func(p *Props) { p.FetchInterval = 2200 * time.Millisecond }, "registry-fetch-interval-seconds"},
		{"percent", func(p *Props) { p.RenewalPercent = 1.5 }, "renewal-percent-threshold"},
	} {
		p := scaledProps()
		tc.edit(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
}

// TestPropsCoverTheModel: every field of the model's Config is either a
// Props field (same name) or listed as hard-coded in the real server, or
// one of the few the model has and the real system spreads elsewhere.
func TestPropsCoverTheModel(t *testing.T) {
	elsewhere := map[string]string{"ReadTimeout": "Props.ReadTimeout", "ConnectTimeout": "Props.ConnectTimeout"}
	props := reflect.TypeOf(Props{})
	for i := range reflect.TypeOf(eurekamodel.Config{}).NumField() {
		name := reflect.TypeOf(eurekamodel.Config{}).Field(i).Name
		_, inProps := props.FieldByName(name)
		hard := slices.ContainsFunc(HardCoded, func(h struct{ Field, Value, Where string }) bool { return h.Field == name })
		if !inProps && !hard && elsewhere[name] == "" {
			t.Errorf("model field %s is neither in Props nor in HardCoded", name)
		}
	}
}

// TestClientTimeoutsAreWholeSeconds: the Java client reads its connect and
// read timeouts in seconds (×1000 into Jersey's milliseconds), so a timeout
// is passed as whole seconds, rounded up; a millisecond figure would make it
// a thousand times longer.
func TestClientTimeoutsAreWholeSeconds(t *testing.T) {
	tests := []struct {
		connect, read time.Duration
		want          []string
	}{
		{5 * time.Second, 8 * time.Second, []string{"-Deureka.eurekaServer.connectTimeout=5", "-Deureka.eurekaServer.readTimeout=8"}},
		{time.Second, 1600 * time.Millisecond, []string{"-Deureka.eurekaServer.connectTimeout=1", "-Deureka.eurekaServer.readTimeout=2"}},
		{200 * time.Millisecond, 1001 * time.Millisecond, []string{"-Deureka.eurekaServer.connectTimeout=1", "-Deureka.eurekaServer.readTimeout=2"}},
	}
	for _, tc := range tests {
		p := DefaultProps()
		p.ConnectTimeout, p.ReadTimeout = tc.connect, tc.read
		got, err := p.ClientProps()
		if err != nil || !reflect.DeepEqual(got[:2], tc.want) {
			t.Errorf("connect %s, read %s: ClientProps = %v, %v; want %v", tc.connect, tc.read, got, err, tc.want)
		}
	}
	p := DefaultProps()
	p.ReadTimeout = 0
	if _, err := p.ClientProps(); err == nil {
		t.Error("a zero read timeout: no error")
	}
}
