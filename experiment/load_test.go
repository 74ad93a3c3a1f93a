package experiment

import (
	"errors"
	"strings"
	"testing"
)

// good is a valid experiment file; each bad case changes one line of it.
const good = `name: unreachable-18s
summary: the registry is unreachable for 18 s while every instance lives
registry: etcd
duration: 30s
instances:
  count: 3
  ttl: 20s
callers:
  - name: keep
    kind: policy
    policy: keep
  - name: clear
    kind: policy
    policy: clear
    refresh: 1s
  - name: mine
    kind: exec
    command: [./my-client, --fast]
timeline:
  - at: 2s
    for: 18s
    fault: registry-unreachable
    how: blackhole
`

func TestParseAcceptsTheDocsExample(t *testing.T) {
	x, err := Parse("x.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if x.Duration.D().Seconds() != 30 || len(x.Callers) != 3 || x.Timeline[0].For.D().Seconds() != 18 || x.Timeline[0].HowOf() != Blackhole {
		t.Errorf("parsed %+v", x)
	}
	// It prints and reads back the same, as YAML and as JSON.
	for _, asJSON := range []bool{false, true} {
		b, err := Marshal(x, asJSON)
		if err != nil {
			t.Fatal(err)
		}
		y, err := Parse("again", b)
		if err != nil || y.Name != x.Name || len(y.Timeline) != 1 || y.Callers[2].Command[1] != "--fast" {
			t.Errorf("round trip (json %v): %v %+v\n%s", asJSON, err, y, b)
		}
	}
}

func TestParseRefusesABadFileInOneLineNamingTheField(t *testing.T) {
	tests := []struct {
		name, from, to, want string
	}{
		{"unknown field", "    how: blackhole", "    hw: blackhole", `timeline[0].hw: unknown field "hw"`},
		{"unknown top field", "duration: 30s", "duraton: 30s", `duraton: unknown field`},
		{"bad duration", "    for: 18s", "    for: 18", `timeline[0].for: want a duration`},
		{"bad duration text", "duration: 30s", "duration: thirty", `duration: want a duration`},
		{"unknown fault", "fault: registry-unreachable", "fault: unplug", `timeline[0].fault: want one of registry-unreachable`},
		{"wrong how", "how: blackhole", "how: unplug", `timeline[0].how: registry-unreachable is made by blackhole, kill, drop`},
		{"member-unreachable by blackhole", "fault: registry-unreachable\n    how: blackhole", "fault: member-unreachable\n    how: blackhole",
			`timeline[0].how: member-unreachable is made by drop`},
		{"heal past the end", "for: 18s", "for: 29s", `timeline[0].for: want at + for within the duration`},
		{"count as text", "count: 3", "count: three", `instances.count: want a number`},
		{"no instances", "count: 3", "count: 0", `instances.count: want 1–2000`},
		{"policy missing", "    policy: clear", "    eject: 1s", `callers[1].policy: a policy caller wants one of keep, clear`},
		{"command on a policy caller", "    refresh: 1s", "    command: [x]", `callers[1].command: only an exec caller`},
		{"duplicate caller", "name: clear", "name: keep", `callers[1].name: "keep" is used twice`},
		{"a registry that is no name", "registry: etcd", "registry: Con Sul", `registry: want a world's name`},
		{"bad name", "name: unreachable-18s", "name: Unreachable 18s", `name: want lower-case letters`},
		{"not YAML", "summary: the registry", "summary: [the registry", `not YAML or JSON`},
		{"a list at the top", good, "- 1\n- 2\n", `want a mapping of fields`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(good, tc.from) {
				t.Fatalf("%q is not in the example", tc.from)
			}
			_, err := Parse("x.yaml", []byte(strings.Replace(good, tc.from, tc.to, 1)))
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !errors.Is(err, ErrBadFile) || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "x.yaml: ") {
				t.Errorf("error %q, want one line starting x.yaml: with %q", msg, tc.want)
			}
		})
	}
}
