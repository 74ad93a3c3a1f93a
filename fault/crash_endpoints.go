package fault

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"sdchaos/history"
)

// Crashable is a service instance whose process a fault crashes: its endpoint stops answering
// (connections refused) while its registration stays as the registry holds it.
type Crashable interface {
	// Name names the instance ("instance-0").
	Name() string
	// Crash closes the instance's endpoint.
	Crash() error
}

// CrashEndpoints crashes instances at once: each stops answering, and what the registry does
// about it is the registry's (a Nacos server health-checks a persistent instance; an
// ephemeral one stays while its client's connection does). It cannot be healed.
type CrashEndpoints struct {
	Instances []Crashable
}

// Describe returns the crash-instance event on the instances ("crash instance-0, instance-1
// (endpoints closed, registrations left)").
func (c CrashEndpoints) Describe() history.Event {
	names := make([]string, len(c.Instances))
	for i, in := range c.Instances {
		names[i] = in.Name()
	}
	return history.Event{Kind: history.CrashInstance, Targets: names,
		Label: fmt.Sprintf("crash %s (endpoints closed, registrations left)", strings.Join(names, ", "))}
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
