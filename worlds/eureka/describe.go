package eureka

import (
	"fmt"

	"sdchaos/history"
	"sdchaos/worlds/eureka/eurekamodel"
	"sdchaos/worlds/eureka/eurekareal"
)

// modelEureka describes the Go model of Eureka: no real component runs.
func modelEureka() history.World {
	return history.World{Server: "Eureka model (the harness's Go model of Netflix Eureka's rules, package eurekamodel; no real Eureka runs)"}
}

// realConstants returns what the real server and client fix in code
// (eurekareal.HardCoded), each with the value the run's bands use in model
// time (cfg: the run's configuration, scaled).
func realConstants(cfg eurekamodel.Config) []history.Constant {
	out := make([]history.Constant, 0, len(eurekareal.HardCoded))
	for _, h := range eurekareal.HardCoded {
		out = append(out, history.Constant{Name: h.Field, Value: h.Value, Model: modelValue(cfg, h.Field), Where: h.Where})
	}
	return out
}

// modelValue is cfg's value of a HardCoded field, as the bands use it.
func modelValue(cfg eurekamodel.Config, field string) string {
	switch field {
	case "RenewsBucket":
		return eurekamodel.FormatModel(cfg.RenewsBucket) + " model time"
	case "LeaseBug":
		return fmt.Sprint(cfg.LeaseBug)
	case "BatchDelay":
		return eurekamodel.FormatModel(cfg.BatchDelay) + " model time"
	case "BatchSize":
		return fmt.Sprint(cfg.BatchSize)
	case "NetworkRetry":
		return eurekamodel.FormatModel(cfg.NetworkRetry) + " model time"
	case "CongestionRetry":
		return eurekamodel.FormatModel(cfg.CongestionRetry) + " model time"
	case "Retries":
		return fmt.Sprint(cfg.Retries)
	}
	return "not used by the bands"
}
