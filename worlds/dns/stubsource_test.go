package dns

import (
	"net"
	"testing"

	mdns "github.com/miekg/dns"
)

func TestEndpointsOf(t *testing.T) {
	srv := func(target string, port uint16) mdns.RR {
		return &mdns.SRV{Hdr: mdns.RR_Header{Name: "api.skydns.local.", Rrtype: mdns.TypeSRV}, Target: target, Port: port}
	}
	a := func(name string) mdns.RR {
		return &mdns.A{Hdr: mdns.RR_Header{Name: name, Rrtype: mdns.TypeA}, A: net.ParseIP("127.0.0.1")}
	}
	cases := []struct {
		name    string
		msg     *mdns.Msg
		want    string
		wantErr bool
	}{
		{"two, out of order", &mdns.Msg{Answer: []mdns.RR{srv("j2.api.skydns.local.", 9162), srv("j1.api.skydns.local.", 9160)},
			Extra: []mdns.RR{a("j1.api.skydns.local."), a("J2.api.skydns.local.")}}, "j1=127.0.0.1:9160 j2=127.0.0.1:9162", false},
		{"none", &mdns.Msg{}, "", false},
		{"target without address", &mdns.Msg{Answer: []mdns.RR{srv("j1.api.skydns.local.", 9160)}}, "", true},
	}
	for _, c := range cases {
		eps, err := endpointsOf(c.msg)
		got := ""
		for i, e := range eps {
			if i > 0 {
				got += " "
			}
			got += e.ID + "=" + e.Addr
		}
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("%s: endpointsOf = %q, %v; want %q (error %v)", c.name, got, err, c.want, c.wantErr)
		}
	}
}
