package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SecondsList is a flag.Value for a comma-separated list of durations,
// each in seconds ("1.5,2,3,5") or as a Go duration ("1500ms"). An empty
// string is an empty list.
type SecondsList []time.Duration

// String returns the list in seconds, formatted with %g ("1.5,2,3,5").
func (l *SecondsList) String() string {
	parts := make([]string, len(*l))
	for i, d := range *l {
		parts[i] = SecondsLabel(d)
	}
	return strings.Join(parts, ",")
}

// Set parses a comma-separated list, replacing the current value.
func (l *SecondsList) Set(s string) error {
	var out []time.Duration
	for _, f := range splitList(s) {
		d, err := parseSeconds(f)
		if err != nil {
			return err
		}
		out = append(out, d)
	}
	*l = out
	return nil
}

// SecondsLabel formats d in seconds with %g: 1.5s → "1.5", 2s → "2".
func SecondsLabel(d time.Duration) string { return fmt.Sprintf("%g", d.Seconds()) }

func parseSeconds(s string) (time.Duration, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(v * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is neither seconds nor a duration", s)
	}
	return d, nil
}

// IntList is a flag.Value for a comma-separated list of integers; "_" may
// group digits ("1_000_000"). An empty string is an empty list.
type IntList []int

// String returns the list comma-separated.
func (l *IntList) String() string {
	parts := make([]string, len(*l))
	for i, n := range *l {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

// Set parses a comma-separated list, replacing the current value.
func (l *IntList) Set(s string) error {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.ParseInt(f, 0, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, int(n))
	}
	*l = out
	return nil
}

// splitList splits on commas and drops empty fields and surrounding spaces.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
