package jvm

import "embed"

// ZooKeeperServer is a real Apache ZooKeeper server: the official
// org.apache.zookeeper:zookeeper 3.9.5 from Maven Central in one runnable jar
// whose main class is ZooKeeper's own QuorumPeerMain. Run as
// `java -jar app.jar zoo.cfg` (package zookeeper).
const ZooKeeperServer Piece = "zookeeper-server"

// ZooKeeperCallers holds the real Java ZooKeeper discovery clients as callers:
// `java -jar app.jar curator` (Apache Curator 5.9.0's ServiceDiscovery and
// ServiceCache) or `java -jar app.jar spring` (Spring Cloud Zookeeper discovery
// 5.0.2 + Spring Cloud LoadBalancer, Boot 4.0.7).
const ZooKeeperCallers Piece = "zookeeper-callers"

//go:embed projects/zookeeper-server/pom.xml projects/zookeeper-server/src
var zookeeperServerSources embed.FS

//go:embed projects/zookeeper-callers/pom.xml projects/zookeeper-callers/src
var zookeeperCallersSources embed.FS

func init() {
	register(ZooKeeperServer, zookeeperServerSources)
	register(ZooKeeperCallers, zookeeperCallersSources)
}
