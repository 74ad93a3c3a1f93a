package eurekamodel

import (
	"fmt"
	"strings"
	"time"
)

// FormatModel prints a model duration compactly: "20m", "1m0.5s", "45s",
// "500ms" — whole seconds from 10 minutes up, tenths from one minute,
// milliseconds below.
func FormatModel(d time.Duration) string {
	switch {
	case d >= 10*time.Minute:
		d = d.Round(time.Second)
	case d >= time.Minute:
		d = d.Round(100 * time.Millisecond)
	default:
		d = d.Round(time.Millisecond)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return s
}

// WallNote says how long a span of model time took in real time at factor
// model seconds per real second.
func WallNote(factor float64, model time.Duration) string {
	return fmt.Sprintf("model time runs ×%g: %s of model time took %.1f s of real time", factor, FormatModel(model),
		model.Seconds()/factor)
}
