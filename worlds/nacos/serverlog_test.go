package nacos

import "testing"

func TestParseLogLine(t *testing.T) {
	tests := []struct {
		rule         int
		line         string
		ok           bool
		size         int
		detail, time string
	}{
		{0, "2026-12-01 19:43:42,818 INFO [PUSH-SUCC] 8ms, all delay time 577ms, SLA 543ms, Service{namespace='public', group='DEFAULT_GROUP', name='svc', ephemeral=true, revision=11}, originalSize=3, DataSize=0, target=192.0.2.2",
			true, 0, "11", "19:43:42.818"},
		{0, "2026-12-01 19:42:19,861 INFO [PUSH-SUCC] 21ms, all delay time 656ms for subscriber 192.0.2.2, Service{namespace='public', group='DEFAULT_GROUP', name='svc', ephemeral=true, revision=5}, originalSize=3, DataSize=3",
			true, 3, "5", "19:42:19.861"},
		{2, "2026-12-01 19:43:42,233 INFO Client connection 1796154153968_127.0.0.1_59828 disconnect, remove instances and subscribers",
			true, -1, "1796154153968_127.0.0.1_59828", "19:43:42.233"},
		{4, "2026-12-01 19:43:42,094 INFO [1796154139079_127.0.0.1_55932]Unregister Out dated connection....",
			true, -1, "1796154139079_127.0.0.1_55932", "19:43:42.094"},
		{5, "2026-12-02 16:25:12,501 WARN protect threshold reached, return all ips, service: DEFAULT_GROUP@@svc",
			true, -1, "DEFAULT_GROUP@@svc", "16:25:12.501"},
		{0, "2026-12-01 19:42:18,418 INFO [PUSH] Task merge for Service{namespace='public', revision=2}", false, 0, "", ""},
		{2, "\tat java.base/java.lang.Thread.run(Thread.java:840)", false, 0, "", ""},
	}
	for _, tc := range tests {
		r := logRules[tc.rule]
		ev, ok := parseLogLine(tc.line, r.kind, r.re)
		if ok != tc.ok {
			t.Errorf("%q: ok %v, want %v", tc.line, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if ev.Size != tc.size || ev.Detail != tc.detail || ev.At.Format("15:04:05.000") != tc.time || ev.Kind != r.kind {
			t.Errorf("%q: got %+v", tc.line, ev)
		}
	}
}
