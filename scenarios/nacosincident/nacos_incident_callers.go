package nacosincident

import "sdchaos/report"

// guard is what stands between a caller and an empty list.
type guard int

const (
	// unguarded: an empty list replaces the client's (plain, go-java-default).
	unguarded guard = iota
	// lbCache: Spring's Nacos client is unguarded, but LoadBalancer reads
	// it only when its 35 s cache entry has expired (or holds an empty list).
	lbCache
	// fallback: the LoadBalancer supplier falls back to the last non-empty list.
	fallback
	// protection: nacos-client's push-empty protection (but the read right
	// after a reconnect takes the raw answer).
	protection
	// ignoreEmpty: nacos-sdk-go's default, an empty list never reaches its cache.
	ignoreEmpty
)

// restartKind says whether the variant with --restart-at restarts a
// caller, and with what its client starts.
type restartKind int

const (
	// keepsRunning: never restarted (the controls of the restart).
	keepsRunning restartKind = iota
	// startsEmpty: restarted; its client does not load its disk cache at
	// start (nacos-client namingLoadCacheAtStart false, Spring Cloud
	// Alibaba's naming-load-cache-at-start false: their defaults;
	// nacos-sdk-go NotLoadCacheAtStart true).
	startsEmpty
	// startsCached: restarted; its client loads its disk cache at start
	// (namingLoadCacheAtStart true: the article's fix; nacos-sdk-go's default).
	startsCached
)

// incidentCaller is one caller of the run: its name and label, what
// guards it against an empty list, how a restart treats it, and whether
// it runs only when callers restart (it differs from its twin only then).
type incidentCaller struct {
	name, label string
	guard       guard
	restart     restartKind
	restartOnly bool
}

// incidentCallers are nacosreal's callers in table order.
var incidentCallers = []incidentCaller{
	{"spring", "spring: Spring Cloud Alibaba + LoadBalancer at their defaults (the incident's setup)", lbCache, startsEmpty, false},
	{"spring-cache", "spring-cache: spring with naming-load-cache-at-start=true (the article's first fix)", lbCache, startsCached, true},
	{"spring-fallback", "spring-fallback: the same + a fallback to the last non-empty list (the article's remedy)", fallback, keepsRunning, false},
	{"plain", "plain: nacos-client, push-empty protection off (its default)", unguarded, startsEmpty, false},
	{"plain-cache", "plain-cache: nacos-client with namingLoadCacheAtStart=true", unguarded, startsCached, true},
	{"plain-protect", "plain-protect: nacos-client, push-empty protection on", protection, keepsRunning, false},
	{"go-java-default", "go-java-default: nacos-sdk-go in Java's defaults (an empty list replaces its cache)", unguarded, startsEmpty, false},
	{"go-sdk", "go-sdk: nacos-sdk-go at its defaults (an empty list is ignored)", ignoreEmpty, startsCached, false},
}

// incidentCallersOf are the callers of a run with (restart) or without
// restarted callers, in table order.
func incidentCallersOf(restart bool) []incidentCaller {
	var out []incidentCaller
	for _, c := range incidentCallers {
		if restart || !c.restartOnly {
			out = append(out, c)
		}
	}
	return out
}

// callerNamesOf are those callers' names.
func callerNamesOf(restart bool) []string {
	var out []string
	for _, c := range incidentCallersOf(restart) {
		out = append(out, c.name)
	}
	return out
}

// restarts reports whether the run restarts callers (--restart-at given).
func (s *nacosIncident) restarts() bool { return s.RestartAt > 0 }

// callers are the run's callers in table order.
func (s *nacosIncident) callers() []incidentCaller { return incidentCallersOf(s.restarts()) }

// names are the run's callers' names in table order.
func (s *nacosIncident) names() []string { return callerNamesOf(s.restarts()) }

// restarted are the callers the run restarts (none without --restart-at).
func (s *nacosIncident) restarted() []string {
	var out []string
	for _, c := range s.callers() {
		if s.restarts() && c.restart != keepsRunning {
			out = append(out, c.name)
		}
	}
	return out
}

// rows are the per-second table's rows; a restarted caller's label says
// with what its client started again.
func (s *nacosIncident) rows() []report.Row {
	var rows []report.Row
	for _, c := range s.callers() {
		label := c.label
		switch {
		case !s.restarts():
		case c.restart == startsEmpty:
			label += " — restarted, no cache at start"
		case c.restart == startsCached:
			label += " — restarted, cache loaded at start"
		}
		rows = append(rows, report.Row{Key: c.name, Label: label})
	}
	return rows
}
