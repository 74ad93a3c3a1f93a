package nacos

import (
	"testing"
	"time"

	"sdchaos/history"
)

// TestCallLogRecordsTypedOps: a line becomes an op as it comes — a call under the caller's
// name with its outcome and error class, a report under the client's label with its kind.
func TestCallLogRecordsTypedOps(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		line   string
		caller string
		kind   history.OpKind
		check  func(history.Op) bool
	}{
		{`{"scheduled":"1970-01-01T00:16:41Z","start":"1970-01-01T00:16:41.001Z","end":"1970-01-01T00:16:41.002Z","target":"","outcome":"fail","err":"java.lang.IllegalStateException: No instances available for svc","class":"no-instance"}`,
			"spring", history.OpCall, func(op history.Op) bool {
				return op.Paced && op.Outcome == history.Fail && op.ErrClass == history.ErrNoInstance && op.Scheduled == time.Second
			}},
		{`{"scheduled":"1970-01-01T00:16:41Z","start":"1970-01-01T00:16:41Z","end":"1970-01-01T00:16:42Z","target":"127.0.0.1:1","outcome":"unknown","err":"timeout","class":"instance"}`,
			"spring", history.OpCall, func(op history.Op) bool { return op.Outcome == history.Unknown && op.ErrClass == history.ErrInstance }},
		{`{"scheduled":"1970-01-01T00:16:41Z","start":"1970-01-01T00:16:41Z","end":"1970-01-01T00:16:41Z","target":"","outcome":"fail","err":"x","class":"new"}`,
			"spring", history.OpCall, func(op history.Op) bool { return op.ErrClass == history.ErrOther }},
		{`{"scheduled":"1970-01-01T00:16:41Z","start":"1970-01-01T00:16:41Z","end":"1970-01-01T00:16:41Z","target":"127.0.0.1:1","outcome":"ok","err":"","class":""}`,
			"spring", history.OpCall, func(op history.Op) bool { return op.Outcome == history.OK && op.ErrClass == "" }},
		{`{"event":"instances","time":"1970-01-01T00:16:42Z","count":0}`,
			history.ClientLabel("spring"), history.OpNotify, func(op history.Op) bool { return op.Count == 0 && op.Start == 2*time.Second }},
		{`{"event":"started","time":"1970-01-01T00:16:39Z","detail":"spring loadCacheAtStart=false"}`,
			history.ClientLabel("spring"), history.OpStart, func(op history.Op) bool {
				return op.Value == "spring loadCacheAtStart=false" && op.Start == -time.Second
			}},
		{`{"event":"setup-failed","time":"1970-01-01T00:16:42Z","detail":"subscribing: not connected"}`,
			history.ClientLabel("spring"), history.OpSetup, func(op history.Op) bool { return op.Outcome == history.Fail && op.Err == "subscribing: not connected" }},
	}
	for _, tc := range tests {
		rec := history.NewRecorder(t0)
		l := NewCallLog(rec, "spring")
		call, ev, err := decodeLine([]byte(tc.line))
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		if call != nil {
			l.call(*call)
		} else {
			l.event(*ev)
		}
		ops := rec.Ops()
		if len(ops) != 1 || ops[0].Caller != tc.caller || ops[0].Kind != tc.kind || !tc.check(ops[0]) {
			t.Errorf("%s: recorded %+v, want one %s op of %s", tc.line, ops, tc.kind, tc.caller)
		}
	}
}

// TestCallLogKeepsWhatComesBeforeItsRecorder: a gated caller reports before the run's zero is
// known; its log keeps those reports and records them at Attach, in order and at their offsets
// from the recorder's zero, then records as they come.
func TestCallLogKeepsWhatComesBeforeItsRecorder(t *testing.T) {
	t0 := time.Unix(1000, 0)
	l := NewCallLog(nil, "plain")
	l.event(Event{Kind: EventInstances, Time: t0.Add(-3 * time.Second), Count: 3})
	l.event(Event{Kind: EventReady, Time: t0.Add(-2 * time.Second)})
	l.exit(t0.Add(-time.Second), 0, "", nil)
	if l.Recorder() != nil {
		t.Fatal("a log without a recorder has one")
	}
	rec := history.NewRecorder(t0)
	l.Attach(rec)
	l.call(Call{Scheduled: t0, Start: t0, End: t0.Add(time.Millisecond), Outcome: OK})
	ops := rec.Ops()
	want := []struct {
		kind history.OpKind
		at   time.Duration
	}{{history.OpNotify, -3 * time.Second}, {history.OpExit, -time.Second}, {history.OpCall, 0}}
	if len(ops) != len(want) {
		t.Fatalf("recorded %+v, want %d ops (the ready event is not recorded)", ops, len(want))
	}
	for i, w := range want {
		if ops[i].Kind != w.kind || ops[i].Start != w.at {
			t.Errorf("op %d: %s at %s, want %s at %s", i, ops[i].Kind, ops[i].Start, w.kind, w.at)
		}
	}
}

// TestSelectClass: nacos-sdk-go's own messages for an empty list are no-instance; any other
// failure of SelectOneHealthyInstance came from its subscribe to the server.
func TestSelectClass(t *testing.T) {
	for msg, want := range map[string]history.ErrClass{sdkEmptyList: history.ErrNoInstance, sdkNoneHealthy: history.ErrNoInstance,
		"client not connected, current status:STARTING": history.ErrRegistry} {
		if got := selectClass(errorString(msg)); got != want {
			t.Errorf("%q: %s, want %s", msg, got, want)
		}
	}
	if selectClass(nil) != "" {
		t.Error("no error has a class")
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// TestDescribeCaller: each caller's client, language and protections, as the judges read them.
func TestDescribeCaller(t *testing.T) {
	tests := map[string]history.CallerInfo{
		"spring":          {Client: ClientSpring, Language: history.Java},
		"spring-cache":    {Client: ClientSpring, Language: history.Java, CacheAtStart: true},
		"spring-fallback": {Client: ClientSpring, Language: history.Java, StaleFallback: true},
		"plain-protect":   {Client: ClientJava, Language: history.Java, EmptyProtection: true},
		"go-sdk":          {Client: ClientGo, Language: history.Go, CacheAtStart: true, EmptyProtection: true},
		"go-java-default": {Client: ClientGo, Language: history.Go},
	}
	for name, want := range tests {
		if got, ok := DescribeCaller(name); !ok || got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	if _, ok := DescribeCaller("spring-2"); ok {
		t.Error("an unknown caller was described")
	}
}
