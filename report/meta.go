package report

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// SchemaVersion is the version of the JSON contract; it changes when a
// field changes meaning or goes away.
const SchemaVersion = 2

// Meta says what produced a result: the harness's version (its VCS
// revision), Go and etcd versions, the machine and the command line.
type Meta struct {
	SchemaVersion int       `json:"schema_version"`
	Harness       string    `json:"harness"`
	Go            string    `json:"go"`
	Etcd          string    `json:"etcd"`
	OS            string    `json:"os"`
	Arch          string    `json:"arch"`
	CPUs          int       `json:"cpus"`
	Start         time.Time `json:"start"`
	Command       []string  `json:"command"`
}

// NewMeta describes this process, started at start.
func NewMeta(start time.Time) *Meta {
	m := &Meta{SchemaVersion: SchemaVersion, Harness: "unknown (built without VCS information)", Go: runtime.Version(),
		Etcd: "unknown", OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Start: start.UTC(), Command: os.Args}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return m
	}
	for _, d := range bi.Deps {
		if d.Path == "go.etcd.io/etcd/server/v3" {
			m.Etcd = d.Version
		}
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = " (with uncommitted changes)"
			}
		}
	}
	if rev != "" {
		m.Harness = strings.TrimSpace(rev + dirty)
	}
	return m
}
