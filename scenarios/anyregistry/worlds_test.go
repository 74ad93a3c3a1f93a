package anyregistry

// The judge is tested against every world's own rules: the worlds register
// themselves when imported.
import (
	_ "sdchaos/worlds/etcd"
	_ "sdchaos/worlds/eureka"
	_ "sdchaos/worlds/nacos"
	_ "sdchaos/worlds/zookeeper"
)
