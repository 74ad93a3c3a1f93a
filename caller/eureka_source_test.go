package caller

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestDecodeEurekaApp(t *testing.T) {
	inst := func(id, status string, port int) string {
		return `{"instanceId":"` + id + `","hostName":"127.0.0.1","app":"WORKER","ipAddr":"127.0.0.1","status":"` + status +
			`","port":{"$":` + strconv.Itoa(port) + `,"@enabled":"true"}}`
	}
	app := func(instances string) string {
		return `{"application":{"name":"WORKER","instance":` + instances + `}}`
	}
	tests := []struct {
		name, body string
		want       []Endpoint
		err        string
	}{
		{"a list, sorted by id", app("[" + inst("w02", "UP", 9602) + "," + inst("w01", "UP", 9601) + "]"),
			[]Endpoint{{ID: "w01", Addr: "127.0.0.1:9601"}, {ID: "w02", Addr: "127.0.0.1:9602"}}, ""},
		{"a lone instance as an object", app(inst("w01", "UP", 9601)), []Endpoint{{ID: "w01", Addr: "127.0.0.1:9601"}}, ""},
		{"only UP instances", app("[" + inst("w01", "DOWN", 9601) + "," + inst("w02", "UP", 9602) + "]"),
			[]Endpoint{{ID: "w02", Addr: "127.0.0.1:9602"}}, ""},
		{"no instance", `{"application":{"name":"WORKER"}}`, []Endpoint{}, ""},
		{"not JSON", `<application/>`, nil, "decoding the application"},
		{"a port that is no number", app(`[{"instanceId":"w01","ipAddr":"127.0.0.1","status":"UP","port":{"$":""}}]`), nil, "decoding the instances"},
		{"no port", app(`[{"instanceId":"w01","ipAddr":"127.0.0.1","status":"UP"}]`), nil, "port"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeEurekaApp([]byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
