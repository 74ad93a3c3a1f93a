package dns

import (
	"testing"
	"time"
)

func TestAnswerTTL(t *testing.T) {
	s := time.Second
	cases := []struct {
		name                        string
		record, lease, lo, hi, want time.Duration
	}{
		{"nothing set", 0, 0, 30 * s, 86400 * s, 300 * s},
		{"record only", 7 * s, 0, 30 * s, 86400 * s, 7 * s},
		{"lease raised to the floor", 0, 4 * s, 30 * s, 86400 * s, 30 * s},
		{"record under the raised lease", 5 * s, 4 * s, 30 * s, 86400 * s, 5 * s},
		{"lease under the record", 60 * s, 40 * s, 30 * s, 86400 * s, 40 * s},
		{"lower floor", 60 * s, 3 * s, 2 * s, 86400 * s, 3 * s},
		{"lease capped", 0, 100000 * s, 30 * s, 86400 * s, 86400 * s},
	}
	for _, c := range cases {
		if got := AnswerTTL(c.record, c.lease, c.lo, c.hi); got != c.want {
			t.Errorf("%s: AnswerTTL = %s, want %s", c.name, got, c.want)
		}
	}
}

func TestCachedFor(t *testing.T) {
	s := time.Second
	cases := []struct{ ttl, max, want time.Duration }{
		{0, 0, 5 * s},
		{3 * s, 0, 5 * s},
		{20 * s, 0, 20 * s},
		{20 * s, 10 * s, 10 * s},
		{2 * time.Hour, 0, time.Hour},
	}
	for _, c := range cases {
		if got := CachedFor(c.ttl, c.max); got != c.want {
			t.Errorf("CachedFor(%s, %s) = %s, want %s", c.ttl, c.max, got, c.want)
		}
	}
}

func TestBands(t *testing.T) {
	b := RecordGoneAfterCrash(5*time.Second, time.Second, 0)
	if b.Lo != 3.5 || b.Hi != 6.5 || b.Basis == "" {
		t.Errorf("RecordGoneAfterCrash(5s, 1s, 0) = %+v", b)
	}
	if b := ServFailAfterQuorumLoss(); b.Hi != 5.5 || b.Basis == "" {
		t.Errorf("ServFailAfterQuorumLoss() = %+v", b)
	}
}
