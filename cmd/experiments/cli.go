package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"sdchaos/report"
	"sdchaos/scenarios"
)

// errHelp is returned when -h was asked inside a scenario's flags.
var errHelp = errors.New("help shown")

// command is one of the commands beside the scenarios: its usage line(s),
// as 'experiments help' lists them and 'experiments help <command>' prints.
type command struct {
	name, usage string
}

// commands are every command run dispatches, in the order usage lists them.
var commands = []command{
	{"list", `experiments list [--markdown]    list the scenarios (--markdown: the README's table)`},
	{"help", `experiments help [<scenario>|<command>]
                                   setup, timeline, flags and what counts as reproduced of a
                                   scenario; the usage of a command`},
	{"registries", `experiments registries           list the worlds an experiment may run on (--registry NAME):
                                   what runs in each and the real clients it offers`},
	{"run", `experiments run FILE... [--registry NAME] [flags]
                                   run an experiment written as data (YAML or JSON; see
                                   docs/experiments.md) on any world (experiments registries);
                                   several (files or built-ins' names) run one after another
                                   on one started world, judged as one run`},
	{"matrix", `experiments matrix [--registries a,b] [--runs N] [--out DIR] [--stored] [--markdown] EXPERIMENT...
                                   run each registry-neutral experiment (a built-in or a file) on
                                   every registry: one table per experiment, a row per client
                                   set-up, a column per registry (calls failed · verdict); --out
                                   also writes each run, matrix.md, matrix.json, a figure per
                                   experiment and matrix.html, the page that links every run;
                                   --runs N runs each cell N times (median failures, their range,
                                   the runs every check held in); --stored runs nothing and makes
                                   the matrix from the runs already in --out`},
	{"all", `experiments all [--only a,b] [--variants] [--out DIR] [--seed N] [--port-base P]
                                   run every scenario (or those named; a variant alone by its
                                   name scenario--variant) one after another, with a
                                   summary; --variants adds each scenario's reference variants;
                                   'all --variants --out results' regenerates results/;
                                   --runs N, --junit FILE, --baseline DIR, --quiet as below;
                                   --eureka model|real for the Eureka scenarios`},
	{"compare", `experiments compare [--html FILE] OLD NEW
                                   compare results (dirs or JSON from --out): medians, change,
                                   Mann–Whitney U with ≥ 4 runs a side; exit 1 if a check moved;
                                   --html also writes the comparison as a page`},
	{"recheck", `experiments recheck [--write] DIR
                                   judge the saved histories in DIR again, without running;
                                   exit 1 naming what moved if a stored report no longer
                                   matches; --write rewrites those reports from the histories`},
	{"merge", `experiments merge [--format F] [--out DIR] SHARD-DIR...
                                   judge the histories of one sharded run (--shard k/n) as one run`},
	{"pages", `experiments pages DIR            write the HTML page of every result, sweep and directory of
                                   results stored under DIR, and DIR/index.html linking them all,
                                   from their JSON and saved histories, without running anything`},
	{"plot", `experiments plot DIR             draw the figures again, without running: every saved history
                                   in DIR (a directory written with --out) as <name>.<figure>.svg
                                   and .png beside its report, and every sweep's figure from its
                                   <scenario>.sweep-<param>.json`},
	{"sweep", `experiments ` + sweepUsage + `
                                   run a scenario at each value of one of its flags (a list
                                   a,b,c or a range FROM:TO:STEP) and draw each headline number's
                                   median with its 95 % interval, theory and band; --out DIR
                                   writes CSV, JSON, markdown, the figure and every point's report`},
}

// commandHelp returns the usage of a command, false when name is none.
func commandHelp(name string) (string, bool) {
	for _, c := range commands {
		if c.name == name {
			return c.usage, true
		}
	}
	return "", false
}

func usage(w io.Writer) {
	fmt.Fprint(w, "experiments — chaos experiments for service discovery against real registries (etcd, Nacos, Eureka, ZooKeeper)\n\nusage:\n")
	for _, c := range commands {
		if c.name == "list" {
			fmt.Fprintln(w, "  "+c.usage)
			fmt.Fprintln(w, "  experiments <scenario> [flags]   run one scenario")
			continue
		}
		fmt.Fprintln(w, "  "+c.usage)
	}
	fmt.Fprint(w, `
every scenario also takes --runs N (seeds seed … seed+N−1; medians with 95 % intervals, N ≥ 6),
--retry-invalid K, --quiet, --junit FILE and --out DIR (reports, saved histories and <name>.html,
a page to open in a browser).

exit codes: 0 every check in its band (reproduced, or the article differs for a stated cause),
            1 a check outside its band (compare: a check moved), 2 usage error,
            3 invalid run or inconclusive repeated runs, 4 the environment failed,
            130 SIGINT, 143 SIGTERM
`)
}

// list prints the scenarios; with --markdown as the README's table.
func list(w io.Writer, args []string) error {
	switch {
	case len(args) == 1 && args[0] == "--markdown":
		return report.RenderTable(w, scenarioTable(), true)
	case len(args) > 0:
		return scenarios.Usagef("list: unexpected argument %q (want nothing or --markdown)", args[0])
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tSOURCE\tTIMELINE\tWHAT IT SHOWS")
	for _, s := range scenarios.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Article, defaultTimeline(s), s.Summary)
	}
	return tw.Flush()
}

// scenarioTable is the README's table of scenarios, made from the registry.
func scenarioTable() report.Table {
	t := report.Table{Header: []string{"scenario", "source", "default --duration", "what it shows"}}
	for _, s := range scenarios.All() {
		t.Rows = append(t.Rows, []string{"`" + s.Name + "`", s.Article, defaultTimeline(s), s.Summary})
	}
	return t
}

// defaultTimeline is the scenario's default --duration ("—" when it has none).
func defaultTimeline(s scenarios.Spec) string {
	fs, common, _ := scenarios.NewFlagSet(s)
	switch {
	case fs.Lookup("duration") == nil:
		return "—"
	case s.ModelTime:
		return common.Duration.String() + " model"
	}
	return common.Duration.String()
}

func lookup(name string) (scenarios.Spec, error) {
	s, ok := scenarios.Lookup(name)
	if !ok {
		names := make([]string, 0)
		for _, sp := range scenarios.All() {
			names = append(names, sp.Name)
		}
		return s, scenarios.Usagef("unknown scenario %q (known: %s)", name, strings.Join(names, ", "))
	}
	return s, nil
}

// help prints a scenario's help, or a command's usage.
func help(w io.Writer, name string) error {
	if u, ok := commandHelp(name); ok {
		fmt.Fprintf(w, "usage:\n  %s\n", u)
		return nil
	}
	spec, ok := scenarios.Lookup(name)
	if !ok {
		cmds := make([]string, len(commands))
		for i, c := range commands {
			cmds[i] = c.name
		}
		_, err := lookup(name)
		return fmt.Errorf("%w; nor a command (%s)", err, strings.Join(cmds, ", "))
	}
	fs, _, _ := scenarios.NewFlagSet(spec)
	writeHelp(w, spec, fs)
	return nil
}

func writeHelp(w io.Writer, spec scenarios.Spec, fs *flag.FlagSet) {
	fmt.Fprintf(w, "%s (%s): %s\n\n", spec.Name, spec.Article, spec.Summary)
	if spec.Help != "" {
		fmt.Fprintf(w, "%s\n\n", strings.TrimSpace(spec.Help))
	}
	if len(spec.Variants) > 0 {
		fmt.Fprintf(w, "reference variants (run by 'experiments all --variants'):\n")
		for _, v := range spec.Variants {
			fmt.Fprintf(w, "  %s--%s: %s %s — %s\n", spec.Name, v.Name, spec.Name, strings.Join(v.Args, " "), v.Why)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "usage: experiments %s [flags]\n\nflags:\n", spec.Name)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// parse parses and validates a scenario's flags; -h prints its help.
func parse(spec scenarios.Spec, args []string, stdout io.Writer) (*scenarios.Common, scenarios.Config, map[string]any, error) {
	common, cfg, params, err := scenarios.Parse(spec, args)
	if errors.Is(err, flag.ErrHelp) {
		fs, _, _ := scenarios.NewFlagSet(spec)
		writeHelp(stdout, spec, fs)
		return nil, nil, nil, errHelp
	}
	return common, cfg, params, err
}
