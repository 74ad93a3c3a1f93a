package eurekaarticle

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/worlds/eureka/eurekamodel"
)

// Plots draws how long after its register on the origin each registration
// became visible: on each peer's registry (ms; the batching band) and to
// each client fetching from a peer (s; the band of batching, response
// cache and fetch interval, and the article's 30 s). The client band
// judges the slowest registration of all clients, ringed: the faster ones
// below it are not outside it.
func (s *replicationLag) Plots(h *history.History) ([]figure.Plot, error) {
	m, err := s.measure(h)
	if err != nil {
		return nil, fmt.Errorf("replication-lag: %w", err)
	}
	cfg := s.eu.config()
	batch, slack := report.Ms(cfg.BatchDelay), report.Ms(s.eu.requestSlack())
	var peers []figure.Group
	for _, name := range sortedNames(m.peer) {
		peers = append(peers, figure.Group{Label: "peer " + name, Values: m.peer[name], BandLo: batch, BandHi: batch + slack})
	}
	pp, err := figure.Distribution(fmt.Sprintf("Registered on %s: visible in each peer's registry (%d registrations)", m.data.Origin, m.registered),
		"after the register (model ms)", "band: batching delay + "+msStr(slack), peers)
	if err != nil {
		return nil, err
	}
	lo, hi, _ := s.clientBand()
	var clients []figure.Group
	for _, name := range sortedNames(m.client) {
		clients = append(clients, figure.Group{Label: name, Values: m.client[name], BandLo: lo.Seconds(), BandHi: hi.Seconds()})
	}
	cache := "response cache off"
	if cfg.ResponseCache {
		cache = "response cache " + eurekamodel.FormatModel(cfg.CacheUpdate)
	}
	cp, err := figure.Distribution(fmt.Sprintf("Visible to a client fetching every %s from a peer (%s)", eurekamodel.FormatModel(s.Fetch), cache),
		"after the register (model s)", "band of the slowest: fetch + batching … + cache (+1 s)", clients)
	if err != nil {
		return nil, err
	}
	if err := figure.AddLines(cp, figure.HLine("article: a delta every 30 s", 30, -0.5, float64(len(clients))-0.5, figure.Vermilion, figure.Dashed)); err != nil {
		return nil, err
	}
	if err := figure.AddPoints(cp, worstClient(clients)); err != nil {
		return nil, err
	}
	figure.FloorY(pp)
	figure.FloorY(cp)
	cp.Y.Max = math.Max(cp.Y.Max, 31)
	figure.Headroom(pp, 0.05)
	figure.Headroom(cp, 0.05) // the ring of the slowest drawn whole
	f := figure.Stack("visibility", pp, cp)
	f.Height = vg.Inch * 6
	return []figure.Plot{f}, nil
}

// worstClient rings the slowest value of all the groups: the one the
// client band judges.
func worstClient(groups []figure.Group) figure.Points {
	pts := figure.Points{Name: "slowest of all clients: the value the band judges", Color: figure.Black, Hollow: true, Radius: 6}
	best := math.Inf(-1)
	for i, g := range groups {
		var vals []float64 // as Distribution draws them: the finite ones
		for _, v := range g.Values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				vals = append(vals, v)
			}
		}
		for j, v := range vals {
			if v > best {
				best, pts.X, pts.Y = v, []float64{figure.DotX(i, j, len(vals))}, []float64{v}
			}
		}
	}
	return pts
}
