package history

import (
	"runtime/debug"
	"slices"
	"strings"
)

// Role is what a component does in a run.
type Role string

// The roles of a run's components.
const (
	// RoleServer is the registry server the run tests.
	RoleServer Role = "server"
	// RoleClient is a discovery client, SDK or client library.
	RoleClient Role = "client"
	// RoleFramework is what a server or client is built on (Spring Boot,
	// Spring Cloud, a release train that fixed the versions).
	RoleFramework Role = "framework"
	// RoleRuntime is the runtime a JVM piece ran on.
	RoleRuntime Role = "runtime"
)

// Component is one real piece of software a run used, named by its
// coordinates and version as its build resolved them: a Maven artifact read
// in the built jar, a Go module read in the harness's build info, the Java
// runtime as it describes itself. Nothing here is typed by hand.
type Component struct {
	// Name says what it is (a server, a client library).
	Name string `json:"name"`
	Role Role   `json:"role"`
	// Coordinates are groupId:artifactId for a Maven artifact (only the
	// artifactId where its jar names no group), the module path of a Go
	// module, the java.home of a Java runtime.
	Coordinates string `json:"coordinates"`
	Version     string `json:"version"`
	// UsedBy names the processes that ran it ("the servers",
	// "Java callers", "the harness: instances").
	UsedBy string `json:"used_by"`
	// Source says where the version was read (a jar's pom.properties, its
	// manifest, its file name; the Go build info; java -XshowSettings).
	Source string `json:"source"`
	// Republication, when set, says that the artifact is a third-party
	// republication of someone else's software, and whose.
	Republication string `json:"republication,omitempty"`
	// Note adds what a reader must know (a launcher that runs no Spring code).
	Note string `json:"note,omitempty"`
}

// Setting is one property a real component ran with, as the harness gave
// it or as the component's own jar sets it.
type Setting struct {
	// Of names who ran with it (a server group, a client).
	Of    string `json:"of"`
	Name  string `json:"name"`
	Value string `json:"value"`
	// Source says where the value comes from (the command line, a system
	// property, the jar's application.properties, an environment variable).
	Source string `json:"source"`
}

// Constant is a value a real component fixes in its code (it cannot be set)
// that the run's bands assume.
type Constant struct {
	Name string `json:"name"`
	// Value is the value the real component runs with.
	Value string `json:"value"`
	// Model is the value the bands use, in the run's model time, where it
	// differs from Value (a time-scaled run).
	Model string `json:"model,omitempty"`
	// Where is the source location that fixes it.
	Where string `json:"where"`
}

// World describes the real systems a run ran: the server its report's
// header names, every component with its version, the settings they ran
// with and the constants the bands assume. Meta embeds it.
type World struct {
	// Server names the registry server and its version in one line (the
	// report's header); several servers are joined with " + ".
	Server     string      `json:"server,omitempty"`
	Components []Component `json:"components,omitempty"`
	Settings   []Setting   `json:"settings,omitempty"`
	Constants  []Constant  `json:"constants,omitempty"`
}

// Add merges o into w: a server line not yet named is appended, and a
// component, setting or constant already present (same coordinates and
// user; same owner and name; same name) is not repeated.
func (w *World) Add(o World) {
	if o.Server != "" && !slices.Contains(strings.Split(w.Server, " + "), o.Server) {
		w.Server = strings.TrimPrefix(w.Server+" + "+o.Server, " + ")
	}
	for _, c := range o.Components {
		if !slices.ContainsFunc(w.Components, func(x Component) bool {
			return x.Coordinates == c.Coordinates && x.UsedBy == c.UsedBy && x.Name == c.Name
		}) {
			w.Components = append(w.Components, c)
		}
	}
	for _, s := range o.Settings {
		if !slices.ContainsFunc(w.Settings, func(x Setting) bool { return x.Of == s.Of && x.Name == s.Name }) {
			w.Settings = append(w.Settings, s)
		}
	}
	for _, c := range o.Constants {
		if !slices.ContainsFunc(w.Constants, func(x Constant) bool { return x.Name == c.Name }) {
			w.Constants = append(w.Constants, c)
		}
	}
}

// Component returns the first component called name, and whether there is one.
func (w World) Component(name string) (Component, bool) {
	i := slices.IndexFunc(w.Components, func(c Component) bool { return c.Name == name })
	if i < 0 {
		return Component{}, false
	}
	return w.Components[i], true
}

// GoSource is the Source of a component read from the Go build info.
const GoSource = "the harness's Go build info (runtime/debug.ReadBuildInfo)"

// ModuleVersion returns the version of the Go module at path that this
// binary was built with, and where that was read: its build info, or, for
// a test binary (whose build info lists no dependencies), the main
// module's go.mod; "" when neither names the module. A replaced module
// says so.
func ModuleVersion(path string) (version, source string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", ""
	}
	if len(bi.Deps) == 0 {
		if v := goModVersion(bi, path); v != "" {
			return v, GoModSource
		}
		return "", ""
	}
	if v := moduleVersion(bi, path); v != "" {
		return v, GoSource
	}
	return "", ""
}

func moduleVersion(bi *debug.BuildInfo, path string) string {
	for _, d := range bi.Deps {
		if d.Path != path {
			continue
		}
		if r := d.Replace; r != nil && r.Version != "" {
			return r.Version + " (" + r.Path + ", replacing " + d.Version + ")"
		} else if r != nil {
			return d.Version + " (replaced by the local copy " + r.Path + ")"
		}
		return d.Version
	}
	return ""
}

// GoModule returns the component of the Go module at path as this binary
// was built with it (version "not in this binary's build info" when absent).
func GoModule(name string, role Role, path, usedBy string) Component {
	v, src := ModuleVersion(path)
	if v == "" {
		v, src = "not in this binary's build info", GoSource
	}
	return Component{Name: name, Role: role, Coordinates: path, Version: v, UsedBy: usedBy, Source: src}
}
