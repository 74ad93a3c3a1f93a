package cluster

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
)

func TestClassify(t *testing.T) {
	v34, v36, v37 := &Version{3, 4, 25}, &Version{3, 6, 5}, &Version{3, 7, 2}
	tests := []struct {
		method Method
		code   codes.Code
		ver    *Version
		want   CallEnd
	}{
		{"Put", codes.OK, v34, EndOK},
		{LeaseKeepAlive, codes.OK, v37, EndOK},
		{LeaseKeepAlive, codes.Canceled, v37, EndClosedByClient},
		{LeaseKeepAlive, codes.Canceled, v34, EndClosedByClient},
		{Watch, codes.Canceled, v34, EndClosedByClient},
		// Before 3.7 a stream its client cancelled may end Unavailable.
		{LeaseKeepAlive, codes.Unavailable, v34, EndNoLeaderOrClosed},
		{LeaseKeepAlive, codes.Unavailable, v36, EndNoLeaderOrClosed},
		{Watch, codes.Unavailable, v34, EndNoLeaderOrClosed},
		// 3.4 gives ErrCanceled, a renewal its client cancelled while a
		// follower forwarded it, no gRPC code.
		{LeaseKeepAlive, codes.Unknown, v34, EndNoLeaderOrClosed},
		{LeaseKeepAlive, codes.Unknown, v36, EndError},
		{Watch, codes.Unknown, v34, EndError},
		// From 3.7 Unavailable on a stream is the registry's: no leader, a renewal timed out.
		{LeaseKeepAlive, codes.Unavailable, v37, EndError},
		// A member that did not say its version is not given the benefit.
		{LeaseKeepAlive, codes.Unavailable, nil, EndError},
		// Unary calls: any code but OK is the registry's, Canceled too.
		{"Put", codes.Canceled, v34, EndError},
		{"LeaseGrant", codes.Unavailable, v34, EndError},
		{"Put", codes.DeadlineExceeded, v37, EndError},
		{LeaseKeepAlive, codes.DeadlineExceeded, v34, EndError},
	}
	for _, tc := range tests {
		if got := Classify(tc.method, tc.code, tc.ver); got != tc.want {
			t.Errorf("%s ending %s on %v: %s, want %s", tc.method, tc.code, tc.ver, got, tc.want)
		}
	}
}

func TestParseVersionAndCode(t *testing.T) {
	for s, want := range map[string]Version{"3.4.25": {3, 4, 25}, "3.7.2": {3, 7, 2}, "3.6.0-rc.1": {3, 6, 0}} {
		if v, err := ParseVersion(s); err != nil || v != want {
			t.Errorf("ParseVersion(%q) = %v, %v", s, v, err)
		}
	}
	for _, bad := range []string{"", "3.4", "v3.4.25", "3.x.1"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted", bad)
		}
	}
	if !(Version{3, 4, 25}).Before(cancelIsCanceled) || (Version{3, 7, 0}).Before(cancelIsCanceled) || !(Version{2, 9, 9}).Before(Version{3, 0, 0}) {
		t.Error("Before orders versions wrongly")
	}
	if ParseCode("Unavailable") != codes.Unavailable || ParseCode("DeadlineExceeded") != codes.DeadlineExceeded || ParseCode("nonsense") != codes.Unknown {
		t.Error("ParseCode")
	}
}

// etcd34Metrics is a real etcd 3.4.25 member's /metrics, read by hand
// after the re-registration storm ran against a three-member cluster of
// etcd's own binary (built from go.etcd.io/etcd at v3.4.25's commit):
// 1336 LeaseKeepAlive streams, all KeepAliveOnce that their clients
// cancelled, ended 1333 Unavailable, 2 Canceled and 1 Unknown; it exports
// no etcd_server_request_duration_seconds.
func etcd34Metrics(t *testing.T) []byte {
	t.Helper()
	f, err := os.Open("testdata/etcd-3.4.25-after-storm.metrics.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEtcd34MetricsAreTyped(t *testing.T) {
	body := etcd34Metrics(t)
	s, err := parseSample(body, time.Unix(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	// The unary calls: grants, puts, revokes, the harness's counts and
	// member lists, all answered OK (the file's grpc_server_handled_total).
	if s.Version != "3.4.25" || s.Started != 5362 || s.HandledOK != 4026 {
		t.Errorf("version %q, started %g, ok %g; want 3.4.25, 5362, 4026", s.Version, s.Started, s.HandledOK)
	}
	if s.StreamsClosed != 2 || s.StreamsUnavailable != 1333 || s.StreamsUnknown != 1 || s.HandledErr != 0 || len(s.ErrCodes) > 0 {
		t.Errorf("closed %g, unavailable %g, unknown %g, errors %g %v; want 2, 1333, 1 and none", s.StreamsClosed, s.StreamsUnavailable,
			s.StreamsUnknown, s.HandledErr, s.ErrCodes)
	}
	if !slices.Equal(s.Missing, []Family{FamilyDuration}) || s.HasLeader != 1 || s.LeaderChanges != 1 {
		t.Errorf("missing %v, has leader %g, leader changes %g; want only the duration histogram missing", s.Missing, s.HasLeader, s.LeaderChanges)
	}
	// The same counters from a member of 3.7, which gives a client's cancel
	// its own code: Unavailable there is the registry's.
	s37, err := parseSample(bytes.ReplaceAll(body, []byte(`server_version="3.4.25"`), []byte(`server_version="3.7.2"`)), time.Unix(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if s37.StreamsUnavailable+s37.StreamsUnknown != 0 || s37.HandledErr != 1334 || s37.ErrCodes["Unavailable"] != 1333 {
		t.Errorf("as 3.7.2: streams no leader or closed %g, errors %g %v; want 0 and 1334", s37.StreamsUnavailable+s37.StreamsUnknown, s37.HandledErr, s37.ErrCodes)
	}
}

// TestFamiliesWithOnlyZerosAreExported: a family whose samples are all
// zero (left out by sampledLines) is exported, not missing.
func TestFamiliesWithOnlyZerosAreExported(t *testing.T) {
	text := "# HELP grpc_server_handled_total x\n# TYPE grpc_server_handled_total counter\n" +
		"grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"Put\"} 0\n" +
		"# TYPE etcd_server_has_leader gauge\netcd_server_has_leader 1\n"
	s, err := parseSample([]byte(text), time.Unix(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if s.Lacks(FamilyHandled) || s.Lacks(FamilyHasLeader) || !s.Lacks(FamilyStarted) || !s.Lacks(FamilyLeaderChanges) {
		t.Errorf("missing %v; want started and leader changes only (plus the duration)", s.Missing)
	}
}
