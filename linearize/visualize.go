package linearize

import (
	"bytes"
	"fmt"
	"sdchaos/history"

	"github.com/anishathalye/porcupine"
)

// HTML returns porcupine's visualisation of the checked history (one
// timeline per key, each operation on its caller's row, the longest
// linearization found and, where there is none, the point where ordering
// failed), annotated with the run's faults (from injection to heal) and
// with each witness's offending read.
func (r Result) HTML(events history.Events) ([]byte, error) {
	info := r.info
	info.AddAnnotations(append(faultAnnotations(events), r.witnessAnnotations()...))
	var b bytes.Buffer
	if err := porcupine.Visualize(model, info, &b); err != nil {
		return nil, fmt.Errorf("writing the linearizability visualisation: %w", err)
	}
	return b.Bytes(), nil
}

// faultAnnotations spans each injected fault until its heal (or shows a
// point when it was never healed).
func faultAnnotations(evs history.Events) []porcupine.Annotation {
	var out []porcupine.Annotation
	for i, e := range evs {
		if e.Phase != history.Inject {
			continue
		}
		end := e.At
		for _, h := range evs[i+1:] {
			if h.Kind == e.Kind && h.Phase == history.Heal {
				end = h.At
				break
			}
		}
		out = append(out, porcupine.Annotation{Tag: "faults", Start: int64(e.At), End: int64(end), Description: e.Label,
			Details: fmt.Sprintf("%s %.3f–%.3f s", e.Kind, e.At.Seconds(), end.Seconds()), BackgroundColor: "#f6d2d2"})
	}
	return out
}

// witnessAnnotations marks each witness's read on its own tagged row.
func (r Result) witnessAnnotations() []porcupine.Annotation {
	var out []porcupine.Annotation
	for _, w := range r.Witnesses {
		out = append(out, porcupine.Annotation{Tag: "witness " + w.Key, Start: int64(w.Stuck.Call), End: int64(w.Stuck.Return),
			Description: fmt.Sprintf("%s %s → %s", w.Stuck.Member, w.Stuck.Kind, show(w.Stuck.Value)), Details: w.Explain(),
			BackgroundColor: "#ffe08a"})
	}
	return out
}
