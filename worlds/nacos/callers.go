package nacos

import (
	"sort"

	"sdchaos/history"
)

// The clients of the callers (history.CallerInfo.Client).
const (
	// ClientSpring is Spring Cloud Alibaba Nacos discovery with Spring
	// Cloud LoadBalancer over the official Java client.
	ClientSpring = "spring-cloud-alibaba"
	// ClientJava is the official Java client alone (com.alibaba.nacos:nacos-client).
	ClientJava = "nacos-client"
	// ClientGo is the official Go client (nacos-sdk-go).
	ClientGo = "nacos-sdk-go"
)

// callerKind is one caller of the world: a Java mode with switches, or the Go SDK with options.
type callerKind struct {
	java                            JavaMode
	protect, fallback, cacheAtStart bool
	goJava                          bool // Go SDK in Java's defaults (else the SDK's own)
	// cacheOnly marks a caller that differs from another only by loading its disk cache at
	// start: it is not among CallerNames (without a restart it behaves as its twin).
	cacheOnly bool
}

var callerKinds = map[string]callerKind{
	"spring":          {java: Spring},
	"spring-fallback": {java: Spring, fallback: true},
	"plain":           {java: Plain},
	"plain-protect":   {java: Plain, protect: true},
	"go-sdk":          {},
	"go-java-default": {goJava: true},
	"spring-cache":    {java: Spring, cacheAtStart: true, cacheOnly: true},
	"plain-cache":     {java: Plain, cacheAtStart: true, cacheOnly: true},
}

// info describes the caller: its client, language and protections. nacos-sdk-go at its
// defaults loads its disk cache at start (NotLoadCacheAtStart false) and ignores an empty list
// (UpdateCacheWhenEmpty false); in Java's defaults it does neither.
func (k callerKind) info() history.CallerInfo {
	switch k.java {
	case Spring:
		return history.CallerInfo{Client: ClientSpring, Language: history.Java, CacheAtStart: k.cacheAtStart, StaleFallback: k.fallback}
	case Plain:
		return history.CallerInfo{Client: ClientJava, Language: history.Java, CacheAtStart: k.cacheAtStart, EmptyProtection: k.protect}
	}
	return history.CallerInfo{Client: ClientGo, Language: history.Go, CacheAtStart: !k.goJava, EmptyProtection: !k.goJava}
}

// DescribeCaller returns what the caller called name is: its client, language and
// protections (false for a name the world does not know).
func DescribeCaller(name string) (history.CallerInfo, bool) {
	k, ok := callerKinds[name]
	if !ok {
		return history.CallerInfo{}, false
	}
	return k.info(), true
}

// KnownCallers returns every caller a world may run: spring (Spring Cloud Alibaba +
// LoadBalancer at their defaults, the incident's configuration), spring-fallback (the same with
// the fallback to the last non-empty list), plain and plain-protect (nacos-client with
// namingPushEmptyProtection off and on), go-sdk (nacos-sdk-go at its defaults), go-java-default
// (nacos-sdk-go with Java's defaults), and spring-cache and plain-cache (spring and plain with
// namingLoadCacheAtStart on: Spring Cloud Alibaba's naming-load-cache-at-start; they differ
// from their twins only when restarted).
func KnownCallers() []string { return callerNames(true) }

func callerNames(all bool) []string {
	names := make([]string, 0, len(callerKinds))
	for n, k := range callerKinds {
		if all || !k.cacheOnly {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
