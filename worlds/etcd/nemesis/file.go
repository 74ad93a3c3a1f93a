// Package nemesis performs member faults on an etcd cluster the harness did
// not start: a JSON file gives, for each action (kill, start, pause,
// resume, isolate, heal), a shell command template per member and a
// timeout. Commands run with `sh -c` so a template can use what a shell
// gives (pipes, $(cat pidfile), environment variables, ssh quoting, &&)
// without the harness growing a language of its own; a placeholder's value
// is checked against a safe character set instead of being quoted, so a
// template may put placeholders anywhere, also inside quotes. Every
// healing action (start after kill, resume after pause, heal after
// isolate) of a fault injected is remembered and run by HealAll, whatever
// happened, until it succeeds once.
package nemesis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"sdchaos/cluster"
)

// ErrInvalid marks a nemesis file that cannot be used (bad JSON, unknown
// action or placeholder, a member without a value a template needs).
var ErrInvalid = errors.New("invalid nemesis file")

// DefaultTimeout bounds an action whose file gives no timeout.
const DefaultTimeout = 30 * time.Second

// File is a parsed nemesis file.
type File struct {
	// Path is where it was read from; Dir is its directory (given to the
	// commands as $SDCHAOS_NEMESIS_DIR).
	Path, Dir string
	// Description says what the file assumes (free text).
	Description string `json:"description"`
	// Timeout bounds every action without its own ("30s").
	Timeout Duration `json:"timeout"`
	// Members gives per-member values ({data_dir}), by member name.
	Members map[string]MemberValues `json:"members"`
	// Actions are the commands, by action name.
	Actions map[cluster.Action]Command `json:"actions"`

	raw []byte
}

// MemberValues are the placeholders a file gives per member.
type MemberValues struct {
	// DataDir is the member's data dir ({data_dir}).
	DataDir string `json:"data_dir"`
}

// Command is one action's template, for every member or per member.
type Command struct {
	// Command is the template run for every member without its own.
	Command string `json:"command"`
	// PerMember overrides Command for the members it names.
	PerMember map[string]string `json:"per_member"`
	// Timeout bounds one run ("10s"); the file's timeout when zero.
	Timeout Duration `json:"timeout"`
}

// Duration is a time.Duration written as "10s" in JSON.
type Duration time.Duration

// UnmarshalJSON parses "10s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"10s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("duration %q: want a positive Go duration such as \"10s\"", s)
	}
	*d = Duration(v)
	return nil
}

// Placeholders lists every placeholder a template may use. {direction} is
// "both" or "one-way" (isolate and heal); {member_id} is the member's id in hex.
var Placeholders = []string{"name", "member_id", "client_url", "peer_url", "client_host", "client_port", "peer_host", "peer_port", "data_dir", "direction"}

var placeholderRE = regexp.MustCompile(`\{([a-z_]*)\}`)

// Load reads and validates a nemesis file. Every error wraps ErrInvalid and
// names the file (and the line where it can).
func Load(path string) (*File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	f := &File{Path: path, Dir: filepath.Dir(path), raw: raw}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(f); err != nil {
		return nil, f.errAt(jsonOffset(err), "%v", err)
	}
	if f.Timeout == 0 {
		f.Timeout = Duration(DefaultTimeout)
	}
	return f, f.validate()
}

func jsonOffset(err error) int64 {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return se.Offset
	case errors.As(err, &te):
		return te.Offset
	}
	return -1
}

// errAt returns an ErrInvalid error naming path:line for a byte offset (or
// the path alone when the offset is unknown).
func (f *File) errAt(offset int64, format string, a ...any) error {
	where := f.Path
	if offset >= 0 && offset <= int64(len(f.raw)) {
		where = fmt.Sprintf("%s:%d", f.Path, 1+bytes.Count(f.raw[:offset], []byte("\n")))
	}
	return fmt.Errorf("%w: %s: %s", ErrInvalid, where, fmt.Sprintf(format, a...))
}

// errNear returns an ErrInvalid error at the first line holding needle.
func (f *File) errNear(needle string, format string, a ...any) error {
	return f.errAt(int64(bytes.Index(f.raw, []byte(needle))), format, a...)
}

func (f *File) validate() error {
	if len(f.Actions) == 0 {
		return f.errAt(-1, "no actions (want some of %s)", actionNames())
	}
	for a, c := range f.Actions {
		if !slices.Contains(cluster.Actions, a) {
			return f.errNear(`"`+string(a)+`"`, "unknown action %q (want one of %s)", a, actionNames())
		}
		if c.Command == "" && len(c.PerMember) == 0 {
			return f.errNear(`"`+string(a)+`"`, "action %q has no command", a)
		}
		for _, t := range append([]string{c.Command}, mapValues(c.PerMember)...) {
			for _, m := range placeholderRE.FindAllStringSubmatch(t, -1) {
				if !slices.Contains(Placeholders, m[1]) {
					return f.errNear(m[0], "action %q: unknown placeholder %s (want one of {%s})", a, m[0], strings.Join(Placeholders, "}, {"))
				}
			}
		}
	}
	return nil
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func actionNames() string {
	names := make([]string, len(cluster.Actions))
	for i, a := range cluster.Actions {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

// Has reports whether the file defines action a.
func (f *File) Has(a cluster.Action) bool { _, ok := f.Actions[a]; return ok }

// CheckMembers checks, once the cluster's members are known, that every
// template can be filled for every member (a per-member command or value
// naming a member the cluster lacks, or {data_dir} without a value for a
// member, is an error).
func (f *File) CheckMembers(members []cluster.Member) error {
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = m.Name
	}
	for name := range f.Members {
		if !slices.Contains(names, name) {
			return f.errNear(`"`+name+`"`, "member %q is not in the cluster (it has %s)", name, strings.Join(names, ","))
		}
	}
	for a, c := range f.Actions {
		for name := range c.PerMember {
			if !slices.Contains(names, name) {
				return f.errNear(`"`+name+`"`, "action %q: member %q is not in the cluster (it has %s)", a, name, strings.Join(names, ","))
			}
		}
		for _, m := range members {
			if _, err := f.render(cluster.Request{Action: a, Member: m}); err != nil {
				return f.errNear(`"`+string(a)+`"`, "%v", err)
			}
		}
	}
	return nil
}
