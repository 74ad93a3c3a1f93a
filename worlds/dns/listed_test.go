package dns

import "testing"

func TestListedIn(t *testing.T) {
	cases := []struct {
		name    string
		a       Answer
		want    int
		wantErr bool
	}{
		{"three", Answer{Rcode: NoError, Ports: []uint16{1, 2, 3}}, 3, false},
		{"no data", Answer{Rcode: NoError}, 0, false},
		{"nxdomain", Answer{Rcode: NXDomain}, 0, false},
		{"servfail", Answer{Rcode: ServFail}, 0, true},
		{"refused", Answer{Rcode: Rcode(5)}, 0, true},
	}
	for _, c := range cases {
		got, err := listedIn(c.a, "api.skydns.local.")
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("%s: listedIn = %d, %v; want %d, error %v", c.name, got, err, c.want, c.wantErr)
		}
	}
}
