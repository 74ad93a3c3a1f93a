package eurekaarticle

import (
	"fmt"
	"image/color"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"sdchaos/figure"
	"sdchaos/history"
	"sdchaos/worlds/eureka/eurekamodel"
)

// selfPreservationKind marks the spans in which a server refused to evict.
const selfPreservationKind history.EventKind = "self-preservation"

// spXLabel is the x axis of every panel: model minutes counted from the
// partition, as the per-minute table counts them.
const spXLabel = "model minutes since the partition (as in the tables; < 0: before it)"

// Plots draws the partition in model minutes counted from it: the
// renewals of the last minute against the threshold on each cluster's s1
// (self-preservation shaded where it refused to evict), every server's
// registry size, and the workers evicted by each eviction run. A panel of
// one cluster shades only that cluster's faults (the events' Cluster):
// the worker that dies belongs to "on", and is drawn there and in the
// panel of both, never in the panels of "off".
func (s *selfPreservation) Plots(h *history.History) ([]figure.Plot, error) {
	m, missing := s.measure(h)
	if missing != "" {
		return nil, fmt.Errorf("self-preservation: %s", missing)
	}
	x := spAxis{zero: m.partAt, end: m.data.Duration}
	wsOn, msOn := m.data.windowsSince(figure.InCluster(h.Events, clusterOn), time.Minute, m.partAt)
	wsOff, msOff := m.data.windowsSince(figure.InCluster(h.Events, clusterOff), time.Minute, m.partAt)
	wsAll, msAll := m.data.windowsSince(h.Events, time.Minute, m.partAt)
	on, err := renewalPanel("Self-preservation on: renewals in the last minute vs the threshold (on-s1)", first(m.data.On), wsOn, msOn, x)
	if err != nil {
		return nil, err
	}
	off, err := renewalPanel("Self-preservation off: renewals in the last minute vs the threshold (off-s1)", first(m.data.Off), wsOff, msOff, x)
	if err != nil {
		return nil, err
	}
	size, err := s.sizePanel(m, wsAll, msAll, x)
	if err != nil {
		return nil, err
	}
	evicted, err := evictedPanel(m, wsOff, msOff, x)
	if err != nil {
		return nil, err
	}
	figure.ShareX(on, off, size, evicted) // minute 0 at one place in every panel
	f := figure.Stack("self-preservation", on, off, size, evicted)
	f.Height = vg.Inch * 10.5
	return []figure.Plot{f}, nil
}

// spAxis maps model times (from the recorder's zero) to the x axis: model
// minutes since zero (the partition); end is the run's end.
type spAxis struct{ zero, end time.Duration }

// at returns the x of model time d.
func (a spAxis) at(d time.Duration) float64 { return (d - a.zero).Minutes() }

// first returns the history of the first server by name.
func first(hs map[string]eurekamodel.History) eurekamodel.History {
	names := sortedNames(hs)
	if len(names) == 0 {
		return eurekamodel.History{}
	}
	return hs[names[0]]
}

// renewalPanel draws one server's renewals per minute and its threshold at
// each eviction run, with the runs that self-preservation refused shaded.
func renewalPanel(title string, h eurekamodel.History, ws []figure.Window, ms []figure.Mark, x spAxis) (*plot.Plot, error) {
	var xs, renews, thresholds []float64
	for _, r := range h.Evictions {
		xs = append(xs, x.at(r.At))
		renews, thresholds = append(renews, float64(r.RenewsLastMin)), append(thresholds, float64(r.Threshold))
	}
	refused := append(append([]figure.Window(nil), ws...), refusedWindows(h, x)...)
	return figure.TimeSeries(title, spXLabel, "renewals per minute", refused, ms,
		figure.Line{Name: "renewals in the last full minute", X: xs, Y: renews, Color: figure.Blue, Points: true},
		figure.Line{Name: "threshold (expected × 0.85)", X: xs, Y: thresholds, Color: figure.Black, Dashes: figure.Dashed, Width: 1.2})
}

// refusedWindows are the spans from an eviction run that self-preservation
// refused to the next run that was allowed (or the end).
func refusedWindows(h eurekamodel.History, x spAxis) []figure.Window {
	var out []figure.Window
	for i := 0; i < len(h.Evictions); i++ {
		if h.Evictions[i].Enabled {
			continue
		}
		j := i
		for j < len(h.Evictions) && !h.Evictions[j].Enabled {
			j++
		}
		w := figure.Window{From: x.at(h.Evictions[i].At), To: x.at(x.end), Kind: selfPreservationKind,
			Label: "self-preservation: eviction refused", Open: j == len(h.Evictions)}
		if j < len(h.Evictions) {
			w.To = x.at(h.Evictions[j].At)
		}
		out = append(out, w)
		i = j
	}
	return out
}

// spClusters are the two clusters' colours and line styles, the same in
// every panel: "on" solid blue, "off" dashed vermilion.
var spClusters = map[string]struct {
	color  color.Color
	dashes []vg.Length
}{clusterOn: {figure.Blue, nil}, clusterOff: {figure.Vermilion, figure.Dashed}}

// serverMark is the i-th server's marker in its cluster's colour: a dot,
// an open square, a ring, each larger than the last, so that where the
// servers of a cluster agree (they mostly do) every marker still shows
// round the next.
func serverMark(l figure.Line, i int) figure.Line {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, figure.OpenSquare{}, draw.RingGlyph{}}
	l.Points, l.PointShape, l.PointRadius = true, shapes[i%len(shapes)], 2.2+1.5*float64(i%len(shapes))
	return l
}

// serverLine is one server's line in its cluster's colour and style, all
// of one width: where a cluster's servers agree the lines coincide and
// their markers (serverMark) tell them apart.
func serverLine(cluster, name string, i int) figure.Line {
	c := spClusters[cluster]
	return serverMark(figure.Line{Name: name, Color: c.color, Dashes: c.dashes, Width: 1.2}, i)
}

// sizePanel draws every server's registry size after each eviction run:
// both clusters, so the faults of both are shaded; "on" solid blue, "off"
// dashed vermilion, each server of a cluster with its own marker.
func (s *selfPreservation) sizePanel(m spMeasure, ws []figure.Window, ms []figure.Mark, x spAxis) (*plot.Plot, error) {
	var lines []figure.Line
	for _, c := range []struct {
		name string
		hs   map[string]eurekamodel.History
	}{{clusterOn, m.data.On}, {clusterOff, m.data.Off}} {
		for i, name := range sortedNames(c.hs) {
			l := serverLine(c.name, name, i)
			for _, r := range c.hs[name].Evictions {
				l.X, l.Y = append(l.X, x.at(r.At)), append(l.Y, float64(r.Size-len(r.Evicted)))
			}
			lines = append(lines, l)
		}
	}
	return figure.TimeSeries(fmt.Sprintf("Workers listed by each server after its eviction run (%d workers per cluster)", s.eu.Workers),
		spXLabel, "workers listed", ws, ms, lines...)
}

// evictedPanel draws how many workers each eviction run of the "off"
// cluster evicted (at most size − (int)(size × 0.85)), each server as in
// the size panel.
func evictedPanel(m spMeasure, ws []figure.Window, ms []figure.Mark, x spAxis) (*plot.Plot, error) {
	var lines []figure.Line
	for i, name := range sortedNames(m.data.Off) {
		l := serverLine(clusterOff, name, i)
		for _, r := range m.data.Off[name].Evictions {
			l.X, l.Y = append(l.X, x.at(r.At)), append(l.Y, float64(len(r.Evicted)))
		}
		lines = append(lines, l)
	}
	on := "\"on\" evicted none"
	if m.onEvicted > 0 {
		on = fmt.Sprintf("\"on\" evicted %d on one server", m.onEvicted)
	}
	return figure.TimeSeries("Workers evicted by each eviction run, self-preservation off (the servers overlap; "+on+")",
		spXLabel, "evicted in the run", ws, ms, lines...)
}
