package nacosincident

import (
	"fmt"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"sdchaos/figure"
	"sdchaos/history"
)

// Plots draws both phases against the seconds from their fault: what the
// server listed, the instances it re-listed per second after the heal, its
// JVM's CPU (cores) and its RSS, the loss shaded and the jitter's heal
// spread beside it.
func (s *nacosStorm) Plots(h *history.History) ([]figure.Plot, error) {
	m, why := s.measure(h)
	if why != "" {
		return nil, fmt.Errorf("nacos-storm: %s", why)
	}
	panels := []struct {
		title, y string
		line     func(phaseMeasure) figure.Line
	}{
		{fmt.Sprintf("What the real Nacos server listed (%d instances, every link blackholed)", m.data.Instances), "instances listed", listedLine},
		{"Instances the server listed again, per second", "re-listed per second", relistedLine},
		{"The server JVM's CPU (/proc/<pid>/stat, between two probes)", "cores", cpuLine},
		{"The server JVM's RSS (/proc/<pid>/status)", "MiB", rssLine},
	}
	f := figure.Plot{Name: "nacos-storm", Width: 9 * vg.Inch, Height: 2.3 * vg.Inch * vg.Length(len(panels))}
	for _, pn := range panels {
		p, err := s.stormPanel(m, pn.title, pn.y, pn.line)
		if err != nil {
			return nil, err
		}
		f.Panels = append(f.Panels, p)
	}
	figure.ShareX(f.Panels...) // every second from the fault at one place
	return []figure.Plot{f}, nil
}

// stormPanel is one panel with a line per phase.
func (s *nacosStorm) stormPanel(m stormMeasure, title, y string, line func(phaseMeasure) figure.Line) (*plot.Plot, error) {
	imm, jit := m.phases[stormImmediate], m.phases[stormJitter]
	ws := []figure.Window{
		{From: 0, To: imm.loss.Seconds(), Kind: history.BlackholeLinks, Label: "every link blackholed"},
		{From: jit.loss.Seconds(), To: (jit.loss + jit.spread).Seconds(), Kind: history.DelayLinks, Label: "jitter: links healed one by one"},
	}
	var lines []figure.Line
	for i, pm := range []phaseMeasure{imm, jit} {
		l := line(pm)
		l.Name, l.Color = pm.p.Strategy, figure.Color(i)
		lines = append(lines, l)
	}
	p, err := figure.TimeSeries(title, "seconds from the phase's fault", y, ws, nil, lines...)
	if err != nil {
		return nil, fmt.Errorf("nacos-storm: %w", err)
	}
	p.X.Min = -(imm.p.FaultAt - imm.p.Listed).Seconds()
	return p, nil
}

// fromFault is t in seconds from the phase's fault.
func fromFault(pm phaseMeasure, t time.Duration) float64 { return (t - pm.p.FaultAt).Seconds() }

func listedLine(pm phaseMeasure) figure.Line {
	l := figure.Line{Step: true}
	for _, smp := range pm.p.Server {
		if smp.Count >= 0 {
			l.X, l.Y = append(l.X, fromFault(pm, smp.At)), append(l.Y, float64(smp.Count))
		}
	}
	return l
}

// relistedLine counts the list's gains per second from the first heal
// (the seconds before it at zero).
func relistedLine(pm phaseMeasure) figure.Line {
	first := pm.p.firstHeal()
	n := int((pm.p.End-first)/time.Second) + 1
	gains := make([]float64, n)
	prev := -1
	for _, smp := range pm.p.Server {
		if smp.Count < 0 {
			continue
		}
		if smp.At >= first && prev >= 0 && smp.Count > prev {
			if k := int((smp.At - first) / time.Second); k < n {
				gains[k] += float64(smp.Count - prev)
			}
		}
		prev = smp.Count
	}
	l := figure.Line{Step: true}
	for k, g := range gains {
		l.X, l.Y = append(l.X, fromFault(pm, first+time.Duration(k)*time.Second)), append(l.Y, g)
	}
	return l
}

func cpuLine(pm phaseMeasure) figure.Line {
	l := figure.Line{Step: true}
	ps := pm.p.Probes
	for i := 1; i < len(ps); i++ {
		if ps[i].CPU < 0 || ps[i-1].CPU < 0 || ps[i].At <= ps[i-1].At {
			continue
		}
		l.X = append(l.X, fromFault(pm, ps[i-1].At))
		l.Y = append(l.Y, (ps[i].CPU-ps[i-1].CPU).Seconds()/(ps[i].At-ps[i-1].At).Seconds())
	}
	return l
}

func rssLine(pm phaseMeasure) figure.Line {
	var l figure.Line
	for _, pr := range pm.p.Probes {
		if pr.RSS >= 0 {
			l.X, l.Y = append(l.X, fromFault(pm, pr.At)), append(l.Y, float64(pr.RSS>>20))
		}
	}
	return l
}
