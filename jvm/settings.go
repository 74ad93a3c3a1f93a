package jvm

import (
	"fmt"
	"sort"
	"strings"

	"sdchaos/history"
)

// Sources of the settings ArgSettings and AppSettings return.
const (
	// SourceSystemProperty: a -Dname=value on the JVM's command line.
	SourceSystemProperty = "system property on the JVM's command line"
	// SourceSpringArg: a --name=value program argument (Spring reads it
	// before every other source).
	SourceSpringArg = "program argument (--name=value; Spring's first property source)"
	// SourceJVMOptions: the JVM's own options on its command line.
	SourceJVMOptions = "the JVM's command line"
	// SourceEnv: an environment variable the harness gives the process.
	SourceEnv = "environment variable"
)

// ArgSettings returns the settings of a JVM command line (what follows the
// java executable): each -Dname=value and --name=value, and the JVM's
// options (-X…, -XX:…) as one setting "JVM options". The jar and the
// arguments that are neither are left out.
func ArgSettings(of string, args []string) []history.Setting {
	var out []history.Setting
	var opts []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-jar":
			i++ // the jar's path
		case strings.HasPrefix(a, "-D"):
			k, v, _ := strings.Cut(a[2:], "=")
			out = append(out, history.Setting{Of: of, Name: k, Value: v, Source: SourceSystemProperty})
		case strings.HasPrefix(a, "--"):
			k, v, _ := strings.Cut(a[2:], "=")
			out = append(out, history.Setting{Of: of, Name: k, Value: v, Source: SourceSpringArg})
		case strings.HasPrefix(a, "-X"):
			opts = append(opts, a)
		}
	}
	if len(opts) > 0 {
		out = append(out, history.Setting{Of: of, Name: "JVM options", Value: strings.Join(opts, " "), Source: SourceJVMOptions})
	}
	return out
}

// EnvSettings returns name=value environment entries as settings; means,
// when it names the variable, says what the program makes of it.
func EnvSettings(of string, env []string, means map[string]string) []history.Setting {
	out := make([]history.Setting, 0, len(env))
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		src := SourceEnv
		if m := means[k]; m != "" {
			src += " (" + m + ")"
		}
		out = append(out, history.Setting{Of: of, Name: k, Value: v, Source: src})
	}
	return out
}

// AppSettings returns the piece's own application.properties as settings,
// in name order, leaving out those given (which override them).
func (inv Inventory) AppSettings(piece Piece, of string, given []history.Setting) []history.Setting {
	names := make([]string, 0, len(inv.AppProperties))
	for k := range inv.AppProperties {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []history.Setting
	for _, k := range names {
		if overridden(k, given) {
			continue
		}
		out = append(out, history.Setting{Of: of, Name: k, Value: inv.AppProperties[k],
			Source: fmt.Sprintf("application.properties in the built %s jar", piece)})
	}
	return out
}

// overridden reports whether a given setting has the name (as Spring's
// relaxed binding reads it: - and _ and case do not matter).
func overridden(name string, given []history.Setting) bool {
	canon := func(s string) string { return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s)) }
	for _, g := range given {
		if canon(g.Name) == canon(name) {
			return true
		}
	}
	return false
}
