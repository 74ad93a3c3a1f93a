package fault

import (
	"context"
	"errors"
	"fmt"

	"sdchaos/history"
)

// Registration is one instance registered with the registry by its own
// client, which DeregisterInstances takes out and puts back.
type Registration interface {
	// Name names the instance ("instance-0").
	Name() string
	// Deregister removes the instance explicitly (its client stays
	// connected and its endpoint keeps answering).
	Deregister() error
	// Reregister registers the instance again on the same client.
	Reregister() error
}

// DeregisterInstances removes every instance from the registry while its
// endpoint stays up and answers, so the registry answers an empty list
// although every instance is alive; the heal registers them again.
type DeregisterInstances struct {
	Instances []Registration
}

// Describe returns the deregister-instances event on the instances
// ("deregister every instance (3, endpoints up)").
func (d DeregisterInstances) Describe() history.Event {
	names := make([]string, len(d.Instances))
	for i, r := range d.Instances {
		names[i] = r.Name()
	}
	return history.Event{Kind: history.DeregisterInstances, Targets: names,
		Label: fmt.Sprintf("deregister every instance (%d, endpoints up)", len(names))}
}

// Inject deregisters every instance.
func (d DeregisterInstances) Inject(context.Context) error {
	return eachRegistration(d.Instances, Registration.Deregister)
}

// Heal registers every instance again.
func (d DeregisterInstances) Heal(context.Context) error {
	return eachRegistration(d.Instances, Registration.Reregister)
}

func eachRegistration(rs []Registration, f func(Registration) error) error {
	var errs []error
	for _, r := range rs {
		if err := f(r); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.Name(), err))
		}
	}
	return errors.Join(errs...)
}
