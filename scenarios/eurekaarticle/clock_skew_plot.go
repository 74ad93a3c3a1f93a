package eurekaarticle

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/worlds/eureka"
	"sdchaos/worlds/eureka/eurekamodel"
)

// Plots draws what the step does to each cluster: the false evictions on
// the stepped server against the band its lease rule predicts, and the
// evictions on its peers (none: evictions are not replicated); and each
// stepped server's registry size over model time with the steps marked.
func (s *clockSkew) Plots(h *history.History) ([]figure.Plot, error) {
	m, err := s.measure(h)
	if err != nil || len(m.outs) == 0 {
		return nil, fmt.Errorf("clock-skew: no cluster was recorded (%v)", err)
	}
	bars, err := s.evictionBars(m)
	if err != nil {
		return nil, err
	}
	sizes, err := s.sizeSeries(h, m)
	if err != nil {
		return nil, err
	}
	f := figure.Stack("false-evictions", bars, sizes)
	f.Height = vg.Inch * 6.4
	return []figure.Plot{f}, nil
}

// evictionBars is one cluster per category: its false evictions, the
// peers' evictions and the band of the lease rule.
func (s *clockSkew) evictionBars(m skewMeasure) (*plot.Plot, error) {
	var cats []string
	var falseEv, peers []float64
	var bands []figure.Band
	for i, o := range m.outs {
		cats = append(cats, fmt.Sprintf("%s lease rule\nself-preservation %s", leaseLabel(o.c.LeaseBug), onOff(o.c.SelfPreservation)))
		lo, hi := s.predicted(o.c)
		bands = append(bands, figure.Band{Name: "predicted by the lease rule", X0: float64(i) - 0.45, X1: float64(i) + 0.45,
			Y0: math.Max(float64(lo)-0.25, 0), Y1: float64(hi) + 0.25, Color: figure.Light(figure.Black, 0x30)})
		fe, pl := float64(o.falseEvict), float64(o.peerLoss)
		if !o.stepped || !o.hasFirst {
			fe, pl = math.NaN(), math.NaN()
		}
		falseEv, peers = append(falseEv, fe), append(peers, pl)
	}
	p, err := figure.BarsOver(fmt.Sprintf("False evictions after s1's clock steps +%s (%d workers, all alive and renewing)", eurekamodel.FormatModel(s.Skew), s.eu.Workers),
		"workers evicted", cats, bands,
		figure.Bar{Name: "evicted by the stepped s1", Values: falseEv, Color: figure.Vermilion},
		figure.Bar{Name: "evicted or cancelled on its peers", Values: peers, Color: figure.Blue})
	if err != nil {
		return nil, err
	}
	p.Y.Min, p.Y.Max = 0, math.Max(p.Y.Max, 1) // a count: from 0, one worker at least
	figure.Headroom(p, 0.1)
	return p, nil
}

// sizeSeries is each stepped server's registry size after each eviction run.
func (s *clockSkew) sizeSeries(h *history.History, m skewMeasure) (*plot.Plot, error) {
	ws, ms := m.data.modelWindows(h, time.Minute)
	ws = oneStep(ws, s.Skew, len(m.outs))
	var lines []figure.Line
	for i, o := range m.outs {
		l := figure.Line{Name: o.c.Label + " s1", Color: figure.Color(i), Points: true, PointRadius: 4.5 - 0.9*float64(i)}
		for _, r := range o.c.Skewed.Evictions {
			l.X, l.Y = append(l.X, minutes(r.At)), append(l.Y, float64(r.Size-len(r.Evicted)))
		}
		lines = append(lines, l)
	}
	// clusters that evict alike coincide: each narrower (and its dots
	// smaller) over the one before; the axis starts at zero, so that a
	// drop reads as the share of the workers it is
	return figure.TimeSeries("Workers listed by each stepped s1 after its eviction runs", "model minutes since the run started",
		"workers listed", ws, ms, figure.Nest(lines)...)
}

// oneStep draws the clusters' clock steps (minutes apart at most, never
// undone) as one window from the first, its label giving their spread.
func oneStep(ws []figure.Window, skew time.Duration, clusters int) []figure.Window {
	var out []figure.Window
	first, last := math.Inf(1), math.Inf(-1)
	at := -1
	for _, w := range ws {
		if w.Kind != eureka.EventStepClock {
			out = append(out, w)
			continue
		}
		first, last = math.Min(first, w.From), math.Max(last, w.From)
		if at < 0 {
			at, out = len(out), append(out, w)
		}
	}
	if at >= 0 {
		out[at].From = first
		out[at].Label = fmt.Sprintf("the clock of each cluster's s1 steps +%s (%d clusters, within %.1f model s)",
			eurekamodel.FormatModel(skew), clusters, (last-first)*60)
	}
	return out
}
