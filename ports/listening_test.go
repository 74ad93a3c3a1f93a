package ports

import (
	"net"
	"reflect"
	"strings"
	"testing"
)

func TestParseListening(t *testing.T) {
	const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	tests := []struct {
		name     string
		rows     string
		from, to int
		want     []int
		wantErr  string
	}{
		{"a listener in range", "   0: 0100007F:4E20 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1\n", 20000, 20100, []int{20000}, ""},
		{"a listener out of range", "   0: 0100007F:4E20 00000000:0000 0A 0 0 0 0 0 1\n", 20001, 20100, nil, ""},
		{"an orphaned FIN_WAIT1 socket is not a listener", "   1: 0100007F:8F68 0100007F:4E20 04 0 0 0 0 0 0\n", 30000, 40000, nil, ""},
		{"an established connection is not a listener", "   1: 0100007F:8F68 0100007F:4E20 01 0 0 0 0 0 0\n", 30000, 40000, nil, ""},
		{"tcp6 address", "   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 0 0 0 0 0 1\n", 8080, 8081, []int{8080}, ""},
		{"a malformed port", "   0: 0100007F:XYZ 00000000:0000 0A 0 0 0 0 0 1\n", 0, 65536, nil, "XYZ"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseListening(strings.NewReader(header+tc.rows), tc.from, tc.to)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestListeningSeesARealListener: a real listener on a free port shows up,
// and is gone once closed.
func TestListeningSeesARealListener(t *testing.T) {
	l, err := net.Listen("tcp", Host+":0")
	if err != nil {
		t.Fatal(err)
	}
	p := l.Addr().(*net.TCPAddr).Port
	got, err := Listening(p, p+1)
	if err != nil || !reflect.DeepEqual(got, []int{p}) {
		t.Fatalf("while listening: %v, %v; want [%d]", got, err, p)
	}
	l.Close()
	if got, err := Listening(p, p+1); err != nil || len(got) != 0 {
		t.Fatalf("after close: %v, %v; want none", got, err)
	}
}
