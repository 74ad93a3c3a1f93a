package nacosincident

import (
	"sdchaos/history"
	"sdchaos/scenarios"
)

// serverConstants are the real server's and clients' constants the Nacos
// bands assume (nacos_incident_rules.go), for a run's metadata.
func serverConstants() []history.Constant {
	return []history.Constant{
		{Name: "KEEP_ALIVE_TIME (connection ejector)", Value: keepAliveTime.String(), Where: "Nacos core RuntimeConnectionEjector.KEEP_ALIVE_TIME"},
		{Name: "ejector probe timeout", Value: ejectProbe.String(), Where: "NacosRuntimeConnectionEjector: ClientDetectionRequest timeout and the wait for the answers"},
		{Name: "ejector period", Value: ejectEvery.String(), Where: "ConnectionManager.start: fixed delay of the ejector"},
		{Name: "client keep-alive", Value: clientKeepAlive.String(), Where: "nacos-client connectionKeepAlive; nacos-sdk-go RpcClient keep-alive (health check of an idle connection)"},
		{Name: "push delay", Value: pushDelay.String(), Where: "Nacos naming PushConstants / PushDelayTask.merge"},
		{Name: "LoadBalancer cache TTL", Value: lbCacheTTL.String(), Where: "Spring Cloud LoadBalancer LoadBalancerCacheProperties"},
	}
}

// describeConstants records the constants in the run's metadata.
func describeConstants(env *scenarios.Env, extra ...history.Constant) {
	env.Describe(history.World{Constants: append(serverConstants(), extra...)})
}
