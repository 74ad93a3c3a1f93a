package dns

import (
	"strings"
	"testing"
	"time"
)

func TestRecordKey(t *testing.T) {
	cases := []struct{ prefix, zone, service, id, want string }{
		{"skydns", DefaultZone, "api", "j1", "/skydns/local/skydns/api/j1"},
		{"/skydns/", DefaultZone, "api", "j2", "/skydns/local/skydns/api/j2"},
		{"ns/skydns", "example.org.", "web", "a", "/ns/skydns/org/example/web/a"},
	}
	for _, c := range cases {
		if got := RecordKey(c.prefix, c.zone, c.service, c.id); got != c.want {
			t.Errorf("RecordKey(%q, %q, %q, %q) = %q, want %q", c.prefix, c.zone, c.service, c.id, got, c.want)
		}
	}
}

func TestRecordValue(t *testing.T) {
	v, err := NewRecord("127.0.0.1", 9161, 5*time.Second).Value()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"host":"127.0.0.1","port":9161,"ttl":5}`; v != want {
		t.Errorf("Value() = %s, want %s", v, want)
	}
}

func TestVersion(t *testing.T) {
	v, from := Version()
	if !strings.HasPrefix(v, "v1.") || from == "" {
		t.Fatalf("Version() = %q, %q; want CoreDNS's module version (v1.x) and where it was read", v, from)
	}
	t.Logf("CoreDNS %s, read from %s", v, from)
}
