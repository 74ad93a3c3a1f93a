package etcd

import "sdchaos/cluster"

// KillNodes SIGKILLs etcd members and restarts them at the heal: the fault
// value every world built on etcd shares (cluster.KillMembers).
type KillNodes = cluster.KillMembers

// PartitionPeer isolates one etcd member from its peers: the fault value
// every world built on etcd shares (cluster.PartitionPeer).
type PartitionPeer = cluster.PartitionPeer
