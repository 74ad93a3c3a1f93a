package jvm

import "embed"

// The JVM pieces of the Eureka experiments.
const (
	// EurekaServer is a real Netflix Eureka server (Spring Cloud Netflix's
	// @EnableEurekaServer) with the harness's read-only /sdchaos/state and
	// /sdchaos/events endpoints.
	EurekaServer Piece = "eureka-server"
	// EurekaClient is Netflix's plain Java DiscoveryClient in a small
	// scheduler program that prints one JSON line per fetch and per task.
	EurekaClient Piece = "eureka-client"
)

//go:embed projects/eureka-server/pom.xml projects/eureka-server/src
var eurekaServerSources embed.FS

//go:embed projects/eureka-client/pom.xml projects/eureka-client/src
var eurekaClientSources embed.FS

func init() {
	register(EurekaServer, eurekaServerSources)
	register(EurekaClient, eurekaClientSources)
}
