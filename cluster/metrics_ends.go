package cluster

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
)

// How a call ended is read from grpc_server_handled_total, whose labels
// give the method and the gRPC code the member's handler returned. A code
// other than OK is not always the registry refusing: a client ends a
// bidirectional stream (LeaseKeepAlive, Watch) by cancelling it — clientv3's
// KeepAliveOnce does so as soon as it has its answer, and a client whose
// link a fault cut or whose held bytes reach the member at the heal ends
// its streams the same way — and what code the member records for that
// depends on its etcd version. The rules below are read in etcd's own
// handlers (etcdserver/api/v3rpc/lease.go and watch.go of 3.4.14, 3.4.16,
// 3.4.25 and 3.7.2):
//
//   - Canceled on a stream is its client's cancel, in every version.
//   - Unavailable on a stream is etcd's "no leader" (ErrGRPCNoLeader): the
//     member cancels the streams of clients that require a leader after
//     3 election timeouts without one. Before 3.7 LeaseKeepAlive also turns
//     every cancel of its client into that error (etcd-io/etcd#13632, fixed
//     by #21122 in 3.7; 3.5 and 3.6, not read, are taken as before the fix,
//     no backport having been found), as Watch did in 3.4.14 and no longer
//     in 3.4.16 (#9725, #10289), so on such a member a stream its client
//     closed ends Unavailable too.
//   - Unknown on LeaseKeepAlive before 3.5 is ErrCanceled ("etcdserver:
//     request cancelled"), which 3.4 maps to no gRPC code (v3rpc/util.go of
//     3.4.13 to 3.4.25; 3.7 maps it to Canceled): a follower returns it
//     when the stream's context ended while it forwarded the renewal to the
//     leader — its client cancelled, or the member cancelled the stream for
//     lack of a leader. It is LeaseRenew's only error without a code there.
//   - In both cases which of the two happened is decided over a window by
//     the member's leader (see storm.MeasureRegistry): a member that had a
//     leader all along did not end a stream for lack of one.
//   - Any other code, and any code but OK on a unary call, is the
//     registry's error.

// Method is a gRPC method of etcd's API, as grpc_server_handled_total's
// grpc_method label names it.
type Method string

// The bidirectional streams of etcd's API, which a client ends by
// cancelling them.
const (
	LeaseKeepAlive Method = "LeaseKeepAlive"
	Watch          Method = "Watch"
)

// Stream reports whether m is a bidirectional stream that its client ends
// by cancelling it.
func (m Method) Stream() bool { return m == LeaseKeepAlive || m == Watch }

// CallEnd is how one gRPC call or stream ended on a member, typed from its
// method, its code and the member's etcd version.
type CallEnd int

const (
	// EndOK is an answer with code OK.
	EndOK CallEnd = iota
	// EndClosedByClient is a stream its client cancelled (code Canceled):
	// not an answer of the registry, and not an error.
	EndClosedByClient
	// EndNoLeaderOrClosed is a stream that ended with a code this member's
	// etcd gives both to a stream it ended for lack of a leader and to one
	// its client cancelled (Unavailable before 3.7; on LeaseKeepAlive
	// before 3.5 also Unknown): decided by the member's leader over the
	// window judged.
	EndNoLeaderOrClosed
	// EndError is any other end: the registry refused or failed the call.
	EndError
)

// String names the end.
func (e CallEnd) String() string {
	switch e {
	case EndOK:
		return "ok"
	case EndClosedByClient:
		return "closed by its client"
	case EndNoLeaderOrClosed:
		return "stream ended for lack of a leader, or closed by its client"
	}
	return "error"
}

// Version is an etcd server version, as etcd_server_version's
// server_version label gives it.
type Version struct{ Major, Minor, Patch int }

// ParseVersion parses "3.4.25" (a suffix after the patch number, as in
// "3.6.0-rc.1", is ignored).
func ParseVersion(s string) (Version, error) {
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("etcd version %q: want major.minor.patch", s)
	}
	patch, _, _ := strings.Cut(parts[2], "-")
	var n [3]int
	for i, p := range []string{parts[0], parts[1], patch} {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return Version{}, fmt.Errorf("etcd version %q: %q is not a number", s, p)
		}
		n[i] = x
	}
	return Version{n[0], n[1], n[2]}, nil
}

// Before reports whether v is older than o.
func (v Version) Before(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// String returns "3.4.25".
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// cancelIsCanceled is the first etcd version whose LeaseKeepAlive ends a
// stream its client cancelled with Canceled (etcd-io/etcd#21122);
// canceledHasCode the first taken to give ErrCanceled a gRPC code (3.4
// gives it none, 3.7 Canceled; 3.5 and 3.6 not read).
var cancelIsCanceled, canceledHasCode = Version{3, 7, 0}, Version{3, 5, 0}

// grpcCodes maps a code's name (grpc_code label) to the code.
var grpcCodes = func() map[string]codes.Code {
	m := map[string]codes.Code{}
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		m[c.String()] = c
	}
	return m
}()

// ParseCode returns the gRPC code a grpc_code label names (Unknown for a
// name that is none).
func ParseCode(name string) codes.Code {
	if c, ok := grpcCodes[name]; ok {
		return c
	}
	return codes.Unknown
}

// Classify types how a call of method m that ended with code c ended on a
// member running etcd version v (nil when the member did not say).
func Classify(m Method, c codes.Code, v *Version) CallEnd {
	switch {
	case c == codes.OK:
		return EndOK
	case !m.Stream():
		return EndError
	case c == codes.Canceled:
		return EndClosedByClient
	case v == nil:
		return EndError
	case c == codes.Unavailable && v.Before(cancelIsCanceled),
		c == codes.Unknown && m == LeaseKeepAlive && v.Before(canceledHasCode):
		return EndNoLeaderOrClosed
	}
	return EndError
}
