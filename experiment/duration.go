package experiment

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a time.Duration written as Go writes one ("18s", "1m30s",
// "500ms") in an experiment file.
type Duration time.Duration

// D returns the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String returns the duration as Go writes it.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes the duration as a string ("18s").
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a duration string ("18s"); a bare number is refused,
// since its unit would be a guess.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration such as \"18s\" or \"500ms\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as \"18s\" or \"500ms\", got %q", s)
	}
	*d = Duration(v)
	return nil
}
