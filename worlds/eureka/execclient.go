package eureka

import (
	"strings"

	"sdchaos/experiment"
	"sdchaos/rig"
)

// The Eureka world's part of a user's client protocol (rig.ExecClient):
// beside rig.EnvRegistry (eureka) and rig.EnvEndpoints (the servers'
// service URLs, "http://127.0.0.1:PORT/eureka/", each through the proxy
// the faults cut as the other clients', in a seeded order), where the
// instances are listed: GET {service URL}apps/{EnvApp} with Accept:
// application/json.
const (
	// EnvApp: the application the instances register as (WORKER).
	EnvApp = "SDCHAOS_APP"
)

// ExecWorld is the Eureka world's part of the environment of a user's
// client reading app on the servers at urls (service URLs).
func ExecWorld(urls []string, app string) []string {
	return []string{
		rig.EnvRegistry + "=" + string(Name),
		rig.EnvEndpoints + "=" + strings.Join(urls, ","),
		EnvApp + "=" + app,
	}
}

// execClient is the user's client of caller c on the started world.
func (w *eurekaNeutral) execClient(c experiment.Caller) *rig.ExecClient {
	return rig.NewExecClient(w.env, rig.ExecConfig{Name: c.Name, Argv: c.Command, Rate: rig.RateOf(c), CallTimeout: rig.CallTimeout,
		World: ExecWorld(serviceURLs(w.rig.Shuffled(w.cl.URLs)), eurekaApp)})
}
