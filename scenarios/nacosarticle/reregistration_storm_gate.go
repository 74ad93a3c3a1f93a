package nacosarticle

import (
	"fmt"
	"strings"
	"time"

	"sdchaos/report"
)

// The sampling gate's name and how many samples the jitter's first window
// must hold.
const (
	samplingGateName = "the members' samples resolve the storm"
	// samplesPerWindow is how many member samples must fall in the jitter's
	// first back-off window (--backoff-base): two are the least that tell a
	// spread over the window from a spike at its start. A burst shorter
	// than a gap is spread over the gap; that lowers the immediate spike's
	// peak far more than the jitter's flat one, so within this limit a gap
	// can only push the peak ratio up (toward outside), never into the band.
	samplesPerWindow = 2
)

// sampleTail is how long the members keep sampling after the last
// registrant is back, so that the registry's side of the last calls is in
// the samples (they are 100 ms apart).
const sampleTail = 5 * sampleEvery

// maxSampleGap is the longest gap between two samples of a member that
// still resolves the storm.
func (s *reregistrationStorm) maxSampleGap() time.Duration {
	return s.Base / samplesPerWindow
}

// samplingGate judges whether the members' samples can measure the
// registry's side: no gap longer than maxSampleGap (a starved member
// samples late, and its spike is spread over the gap) and samples up to the
// moment the last registrant was back (after its last sample a member's
// counters are flat, whatever it received). Sizes that cannot be judged for
// another reason (why) are left out.
func (s *reregistrationStorm) samplingGate(sizes []stormSize) (report.Gate, bool) {
	limit := s.maxSampleGap()
	var worst time.Duration
	var short []string
	n := 0
	for _, sz := range sizes {
		if sz.why != "" {
			continue
		}
		for _, sd := range []stormSide{sz.imm, sz.jit} {
			n++
			worst = max(worst, sd.load.MaxGap)
			if sd.load.Covered < sd.phase.Last {
				short = append(short, fmt.Sprintf("%s: samples end %.2f s after the heal, the last registrant was back at %.2f s",
					sd.phase.id(), sd.load.Covered.Seconds(), sd.phase.Last.Seconds()))
			}
		}
	}
	if n == 0 {
		return report.Gate{}, false
	}
	measured := fmt.Sprintf("longest gap %.0f ms", report.Ms(worst))
	if len(short) > 0 {
		measured += "; " + strings.Join(short, "; ")
	}
	return report.Gate{Name: samplingGateName, OK: worst <= limit && len(short) == 0, Measured: measured,
		Limit: fmt.Sprintf("gap ≤ %.0f ms (%d samples per --backoff-base %s); samples until the last registrant is back",
			report.Ms(limit), samplesPerWindow, s.Base)}, true
}
