package main

import (
	"fmt"
	"slices"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
	"sdchaos/worlds/etcd"
)

// ranLine says in one line what a stored run ran, for its page's header,
// and whether etcd members ran in it. A result whose metadata names its
// server says it in its own words; an older one is described from its
// scenario's world and parameters (--eureka, --registry).
func ranLine(spec scenarios.Spec, found bool, res *report.Result) (line string, etcdRan bool) {
	m := res.Meta
	if m != nil && m.Server != "" {
		return m.Server, slices.ContainsFunc(m.Components, func(c history.Component) bool { return c.Name == etcd.EtcdServerComponent })
	}
	etcdLine := "etcd"
	if m != nil {
		etcdLine = fmt.Sprintf("etcd %s (%s, the module the harness embeds), members started by the harness", m.Etcd, history.EtcdServerModule)
	}
	switch eurekaKind, registry := paramText(res, "eureka"), paramText(res, "registry"); {
	case eurekaKind == "real":
		return "real Netflix Eureka servers (Spring Cloud Netflix Eureka, each a JVM)", false
	case eurekaKind == "model":
		return "the harness's Go model of Netflix Eureka (package eureka); no real Eureka ran", false
	case registry != "" && registry != "etcd":
		return "", false // the title names the world
	case found && spec.Ground == scenarios.EtcdMembers:
		return etcdLine, true
	}
	return "", false
}

// paramText is a result's parameter as text ("" when absent).
func paramText(res *report.Result, name string) string {
	v, ok := res.Params[name]
	if !ok {
		return ""
	}
	return fmt.Sprint(v)
}
