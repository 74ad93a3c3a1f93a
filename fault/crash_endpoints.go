package fault

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"sdchaos/history"
)

// CrashEndpoints crashes several instances at once (CrashTarget crashes one): each stops as
// its process's death would, and what the registry does about it is the registry's (a Nacos
// server health-checks a persistent instance, which no client holds). It cannot be healed.
type CrashEndpoints struct {
	Instances []Crashable
}

// Describe returns the crash-instance event on the instances ("crash instance-0, instance-1
// (crashed)").
func (c CrashEndpoints) Describe() history.Event {
	names := make([]string, len(c.Instances))
	for i, in := range c.Instances {
		names[i] = in.Name()
	}
	return history.Event{Kind: history.CrashInstance, Targets: names,
		Label: fmt.Sprintf("crash %s (crashed)", strings.Join(names, ", "))}
}

// Inject crashes every instance and joins the errors.
func (c CrashEndpoints) Inject(context.Context) error {
	var errs []error
	for _, in := range c.Instances {
		if err := in.Crash(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", in.Name(), err))
		}
	}
	return errors.Join(errs...)
}
