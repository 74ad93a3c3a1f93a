// Package zookeeperrun holds no code: its tests run the experiments command
// against a real ZooKeeper ensemble with Curator and Spring Cloud Zookeeper (the registry seam, and interrupted runs that must leave
// nothing), a package of their own so that each stays within go test's
// per-package limit.
package zookeeperrun
