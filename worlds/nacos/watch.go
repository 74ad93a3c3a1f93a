package nacos

import (
	"context"
	"time"
)

// Sample is one reading of what the server holds for a service.
type Sample struct {
	// At is when the answer arrived.
	At time.Time
	// Count is the number of instances listed (healthy or not); -1 when Err is set.
	Count int
	// Healthy is the number listed healthy.
	Healthy int
	// Err is the reading's error text ("" when it succeeded).
	Err string
}

// sample is one reading of service's list (its answer's time, what it listed).
func (s *Server) sample(ctx context.Context, service string) Sample {
	list, err := s.Instances(ctx, service)
	if err != nil {
		return Sample{At: time.Now(), Count: -1, Err: err.Error()}
	}
	n := 0
	for _, in := range list {
		if in.Healthy {
			n++
		}
	}
	return Sample{At: time.Now(), Count: len(list), Healthy: n}
}
