package scenarios

import (
	"fmt"
	"net"
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

// TimeFlag is an RFC 3339 time flag (zero when not given).
type TimeFlag struct{ time.Time }

// String formats the time (RFC 3339, "" when zero).
func (t *TimeFlag) String() string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

// Set parses an RFC 3339 time ("" leaves it zero).
func (t *TimeFlag) Set(s string) error {
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("want an RFC 3339 time such as 2026-11-30T10:00:00Z: %v", err)
	}
	t.Time = v
	return nil
}

// URLsFlag is a comma-separated list of http://host:port URLs.
type URLsFlag []string

// String joins the URLs with commas.
func (u *URLsFlag) String() string { return strings.Join(*u, ",") }

// Set parses a comma-separated list ("" is empty); each URL needs a host and port.
func (u *URLsFlag) Set(s string) error {
	*u = nil
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		hostport := strings.TrimPrefix(e, "http://")
		if _, _, err := net.SplitHostPort(hostport); err != nil || strings.Contains(hostport, "/") {
			return fmt.Errorf("want http://host:port URLs separated by commas, got %q", e)
		}
		*u = append(*u, e)
	}
	return nil
}
