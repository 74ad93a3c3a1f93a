package childproc

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStdoutToLog: with StdoutToLog the program's stdout and stderr both
// land in its log file and no reader is handed back; without it stdout
// comes back as the reader and only stderr reaches the log.
func TestStdoutToLog(t *testing.T) {
	s, err := NewSupervisor(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		name   string
		toLog  bool
		reader bool
		log    string
	}{
		{"to the log", true, false, "out\nerr\n"},
		{"handed back", false, true, "err\n"},
	} {
		path := filepath.Join(t.TempDir(), "log")
		child, out, err := s.StartExternal(ExternalSpec{Name: c.name, Path: "/bin/sh",
			Args: []string{"-c", "echo out; echo err >&2"}, LogPath: path, StdoutToLog: c.toLog})
		if err != nil {
			t.Fatal(err)
		}
		if (out != nil) != c.reader {
			t.Errorf("%s: reader handed back %v, want %v", c.name, out != nil, c.reader)
		}
		if out != nil {
			if b, _ := io.ReadAll(out); string(b) != "out\n" {
				t.Errorf("%s: stdout %q, want %q", c.name, b, "out\n")
			}
			out.Close()
		}
		select {
		case <-child.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the program did not end", c.name)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.log {
			t.Errorf("%s: log %q, want %q", c.name, b, c.log)
		}
	}
}
