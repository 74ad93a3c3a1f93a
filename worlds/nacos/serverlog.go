package nacos

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"time"
)

// Kinds of ServerEvent, read from the server's own logs (nacos.home's user.home/nacos/logs, as
// Nacos's META-INF/logback/nacos.xml lays them out).
const (
	// PushOK: the server pushed the service's list to a subscriber (Size instances);
	// naming-push.log "[PUSH-SUCC] … DataSize=N".
	PushOK = "push"
	// PushFailed: a push failed; naming-push.log "[PUSH-FAIL]".
	PushFailed = "push-fail"
	// Disconnect: a client connection ended and its instances and subscriptions were removed;
	// naming-server.log "Client connection … disconnect, remove instances and subscribers".
	Disconnect = "disconnect"
	// EjectProbe: the connection ejector found a connection idle for 20 s and sent it a
	// ClientDetectionRequest; plugin-control-connection.log "send connection active request".
	EjectProbe = "eject-probe"
	// Eject: the probe got no answer and the connection was unregistered;
	// plugin-control-connection.log "Unregister Out dated connection".
	Eject = "eject"
	// ProtectThreshold: a service's healthy share was at most its protectThreshold and the
	// server handed out every instance marked healthy; naming-server.log "protect threshold
	// reached, return all ips" (ServiceUtil.selectInstancesWithHealthyProtection).
	ProtectThreshold = "protect-threshold"
)

// ServerEvent is one line of interest in the server's logs.
type ServerEvent struct {
	At   time.Time
	Kind string
	// Size is a push's DataSize (instances pushed); -1 otherwise.
	Size int
	// Detail is the connection id or the push's service revision.
	Detail string
}

var logRules = []struct {
	file string
	kind string
	re   *regexp.Regexp
}{
	{"naming-push.log", PushOK, regexp.MustCompile(`\[PUSH-SUCC\].*revision=(\d+)\}, originalSize=\d+, DataSize=(\d+)`)},
	{"naming-push.log", PushFailed, regexp.MustCompile(`\[PUSH-FAIL\].*revision=(\d+)\}()`)},
	{"naming-server.log", Disconnect, regexp.MustCompile(`Client connection (\S+) disconnect, remove instances and subscribers()`)},
	{"plugin-control-connection.log", EjectProbe, regexp.MustCompile(`\[(\S+)\]send connection active request()`)},
	{"plugin-control-connection.log", Eject, regexp.MustCompile(`\[(\S+)\]Unregister Out dated connection()`)},
	{"naming-server.log", ProtectThreshold, regexp.MustCompile(`protect threshold reached, return all ips, service: (\S+)()`)},
}

var logStamp = regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) `)

// Events reads the server's logs and returns the events of interest in time order (times
// have the logs' millisecond resolution, in the JVM's time zone, taken to be the harness's).
func (s *Server) Events() ([]ServerEvent, error) {
	dir := filepath.Join(s.home, "nacos", "logs")
	var out []ServerEvent
	for _, r := range logRules {
		evs, err := scanLog(filepath.Join(dir, r.file), r.kind, r.re)
		if err != nil {
			return nil, fmt.Errorf("reading %s's logs: %w", s.name, err)
		}
		out = append(out, evs...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, nil
}

func scanLog(path, kind string, re *regexp.Regexp) ([]ServerEvent, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []ServerEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if ev, ok := parseLogLine(sc.Text(), kind, re); ok {
			out = append(out, ev)
		}
	}
	return out, sc.Err()
}

func parseLogLine(line, kind string, re *regexp.Regexp) (ServerEvent, bool) {
	stamp := logStamp.FindStringSubmatch(line)
	m := re.FindStringSubmatch(line)
	if stamp == nil || m == nil {
		return ServerEvent{}, false
	}
	at, err := time.ParseInLocation("2006-01-02 15:04:05,000", stamp[1], time.Local)
	if err != nil {
		return ServerEvent{}, false
	}
	size := -1
	if n, err := strconv.Atoi(m[2]); err == nil {
		size = n
	}
	return ServerEvent{At: at, Kind: kind, Size: size, Detail: m[1]}, true
}
