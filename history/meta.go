package history

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// SchemaVersion is the version of the JSON contract and of the saved
// history; it changes when a field changes meaning or goes away. Version 3
// added op kinds and nodes (Op.Kind, Op.Via) and numeric statistics over
// repeated runs; histories of version 2 are still read (ReadHistory gives
// their ops the kinds).
const SchemaVersion = 3

// Meta says what produced a result: the harness's version (its VCS
// revision), Go and etcd versions, the machine, the command line, and the
// real systems the run ran (World: the server, every component and its
// version, their settings and the constants the bands assume; absent in
// results written before they were recorded).
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
	// Rejudged, when set, says that the report was judged again from the
	// run's saved histories (recheck --write) by another harness revision.
	Rejudged *Rejudge `json:"rejudged,omitempty"`
	World
}

// Rejudge is when and by which harness revision a stored run was judged again.
type Rejudge struct {
	Harness string    `json:"harness"`
	At      time.Time `json:"at"`
}

// NewRejudge describes a re-judging by this process at t.
func NewRejudge(t time.Time) *Rejudge {
	return &Rejudge{Harness: NewMeta(t).Harness, At: t.UTC()}
}

// EtcdServerModule is the Go module of etcd's server, which the harness's
// member processes embed.
const EtcdServerModule = "go.etcd.io/etcd/server/v3"

// NewMeta describes this process, started at start.
func NewMeta(start time.Time) *Meta {
	cmd := append([]string{"experiments"}, os.Args[1:]...) // argv[0] of 'go run' is a temp path
	m := &Meta{SchemaVersion: SchemaVersion, Harness: gitRevision(), Go: runtime.Version(),
		Etcd: "unknown", OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Start: start.UTC(), Command: cmd}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return m
	}
	if v, _ := ModuleVersion(EtcdServerModule); v != "" {
		m.Etcd = v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = " " + Uncommitted
			}
		}
	}
	if rev != "" {
		m.Harness = strings.TrimSpace(rev + dirty)
	}
	return m
}

// Uncommitted marks a harness revision built from a tree with uncommitted changes: a result
// made or re-judged by it cannot be traced to a commit.
const Uncommitted = "(with uncommitted changes)"

// gitRevision is the fallback when the binary carries no VCS information
// ('go run' stamps none): the revision of the git checkout in the working
// directory, if there is one.
func gitRevision() string {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown (built without VCS information)"
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		rev += " " + Uncommitted
	}
	return rev + " (git in the working directory)"
}
