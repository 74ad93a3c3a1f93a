package anyregistry

// The judge is tested against every world's own rules: the worlds register
// themselves when imported.
import (
	etcdworld "sdchaos/worlds/etcd"
	eurekaworld "sdchaos/worlds/eureka"
	nacosworld "sdchaos/worlds/nacos"
	zkworld "sdchaos/worlds/zookeeper"
)

// The worlds' --registry names, as each world declares it.
const (
	etcdName      = etcdworld.Name
	eurekaName    = eurekaworld.Name
	nacosName     = nacosworld.Name
	zookeeperName = zkworld.Name
)
