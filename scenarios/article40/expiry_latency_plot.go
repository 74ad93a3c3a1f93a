package article40

import (
	"fmt"
	"strings"
	"time"

	"sdchaos/figure"
	"sdchaos/history"
)

// Plots draws, per expiry strategy, how long after the ttl each crashed
// instance disappeared from Lookup: every run as a dot, a box plot, the
// band of the rule (a scan adds up to one interval) and the article's
// figures.
func (s *expiryLatency) Plots(h *history.History) ([]figure.Plot, error) {
	m := s.measure(h)
	ttl := s.TTL.Seconds()
	var groups []figure.Group
	art := figure.Points{Name: "article: min, median, max", Color: figure.Black, Hollow: true, Radius: 4}
	for i, am := range m.arms {
		g := figure.Group{Label: shortArm(am.arm), BandLo: 0, BandHi: 1000 * (am.arm.interval + latencySlack).Seconds()}
		for _, v := range am.lat {
			g.Values = append(g.Values, 1000*(v-ttl))
		}
		groups = append(groups, g)
		if am.arm.hasArticle && s.articleSetup() {
			for _, v := range am.arm.article {
				art.X, art.Y = append(art.X, float64(i)+0.38), append(art.Y, 1000*(v-ttl))
			}
		}
	}
	p, err := figure.Distribution(fmt.Sprintf("Crashed instance: last heartbeat + ttl (%s) → gone from Lookup, %d crashes each", s.TTL, s.Runs),
		"after the ttl (ms)", "rule: ≤ one scan interval + 30 ms", groups)
	if err != nil {
		return nil, err
	}
	if len(art.X) > 0 {
		if err := figure.AddPoints(p, art); err != nil {
			return nil, err
		}
	}
	figure.FloorY(p)
	figure.Headroom(p, 0.05)
	return []figure.Plot{figure.One("expiry-latency", p)}, nil
}

// shortArm is a strategy's name short enough for an axis label.
func shortArm(a latencyArm) string {
	switch {
	case a.interval > 0:
		return "scan every " + fmtDur(a.interval)
	case a.key == "lazy":
		return "lazy (at lookup)"
	}
	return "min-heap timer"
}

// fmtDur prints a duration without trailing zero units ("1s", "200ms").
func fmtDur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return s
}
