package anyregistry

import (
	"fmt"
	"time"

	"sdchaos/experiment"
)

// stretch returns x with its one healed fault step lasting d instead of its own for (its summary
// says so): the steps after that step's start and the run's end move by the difference, so what
// follows the heal keeps its length (a sweep over the fault's length: experiments sweep NAME
// --param fault-for 18s,25s,40s). It refuses an experiment with no healed fault step, or more
// than one.
func stretch(x experiment.Experiment, d time.Duration) (experiment.Experiment, error) {
	at := -1
	for i, s := range x.Timeline {
		if s.Fault == "" || s.For <= 0 {
			continue
		}
		if at >= 0 {
			return x, fmt.Errorf("--fault-for: %s has more than one healed fault step (timeline[%d] and [%d]): say which in a file of your own", x.Name, at, i)
		}
		at = i
	}
	if at < 0 {
		return x, fmt.Errorf("--fault-for: %s has no healed fault step (one with a for)", x.Name)
	}
	if d <= 0 {
		return x, fmt.Errorf("--fault-for: want a positive duration, got %s", d)
	}
	out := x
	out.Timeline = append([]experiment.Step(nil), x.Timeline...)
	from, delta := out.Timeline[at].At, experiment.Duration(d)-out.Timeline[at].For
	out.Timeline[at].For = experiment.Duration(d)
	for i := range out.Timeline {
		if i != at && out.Timeline[i].At > from {
			out.Timeline[i].At += delta
		}
	}
	out.Duration += delta
	out.Summary += fmt.Sprintf(" (its fault step lasting %s: --fault-for)", d)
	if err := out.Validate(); err != nil {
		return x, fmt.Errorf("--fault-for %s: %w", d, err)
	}
	return out, nil
}

// applyFaultFor stretches the experiment once by --fault-for, when given.
func (c *Config) applyFaultFor() error {
	if c.FaultFor == 0 || c.stretched || c.X.Name == "" {
		return nil
	}
	x, err := stretch(c.X, c.FaultFor)
	if err != nil {
		return err
	}
	c.X, c.stretched = x, true
	return nil
}
