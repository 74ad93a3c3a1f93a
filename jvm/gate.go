package jvm

import (
	"fmt"
	"os"
	"time"
)

// OpenGate opens a gated Java caller's gate (the callers' SDCHAOS_GATE): it writes the file at
// path with two RFC 3339 lines, the first call's due time and the end of the calls,
// atomically (a temp file renamed), so the caller, which polls for the file, reads it whole.
func OpenGate(path string, start, end time.Time) error {
	tmp := path + ".tmp"
	body := start.UTC().Format(time.RFC3339Nano) + "\n" + end.UTC().Format(time.RFC3339Nano) + "\n"
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		return fmt.Errorf("writing the gate %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("opening the gate %s: %w", path, err)
	}
	return nil
}
