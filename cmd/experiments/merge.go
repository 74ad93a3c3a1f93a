package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"sdchaos/history"
	"sdchaos/report"
	"sdchaos/scenarios"
)

// dataMerger is a scenario that can combine its shards' recorded data
// (shard 0's first) into the data of one run with the whole fleet.
type dataMerger interface {
	MergeData(datas []json.RawMessage) (json.RawMessage, error)
}

// shardFlags are the arguments in which the shards of one run differ.
var shardFlags = []string{"shard", "shard-endpoints"}

// shardHistory is one shard's saved history.
type shardHistory struct {
	path    string
	k, n    int
	header  history.HistoryHeader
	history *history.History
}

// merge is `experiments merge [--format F] [--out DIR] DIR...`: it reads
// the history each shard of one sharded run saved with --out, combines
// them into the history of one run with the whole fleet (ops
// concatenated, events deduplicated, the scenario's data merged, the
// validity gates computed on the whole), judges it and prints and writes
// it like a normal run.
func merge(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "table", "stdout format: "+strings.Join(report.Formats, " | "))
	out := fs.String("out", "", "also write the merged report and history into this directory")
	if err := fs.Parse(args); err != nil {
		return scenarios.Usagef("merge: %v", err)
	}
	if fs.NArg() < 2 || !slices.Contains(report.Formats, *format) {
		return scenarios.Usagef("merge: want --format one of %s and at least two shard directories (each a shard's --out)", strings.Join(report.Formats, ", "))
	}
	shards, err := readShards(fs.Args())
	if err != nil {
		return err
	}
	if err := prepareOut(*out); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	rr, err := mergeShards(shards)
	if err != nil {
		return err
	}
	if err := report.Render(stdout, rr.result, *format); err != nil {
		return fmt.Errorf("merge: writing output: %w", err)
	}
	if err := writeOut(*out, rr, nil); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	return verdictErr(rr.result.Verdict)
}

// readShards reads one saved history per argument (a directory holding
// exactly one, or the file) and checks they are the shards of one run:
// same scenario, seed and arguments but --shard and --shard-endpoints,
// and shards 0 … n−1 each once. They are returned in shard order.
func readShards(paths []string) ([]shardHistory, error) {
	var out []shardHistory
	for _, p := range paths {
		sh, err := readShard(p)
		if err != nil {
			return nil, err
		}
		out = append(out, sh)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].k < out[j].k })
	first := out[0]
	for i, sh := range out {
		switch {
		case sh.n != len(out) || sh.k != i:
			return nil, scenarios.Usagef("merge: %s is shard %d/%d; want shards 0/%d … %d/%d each once", sh.path, sh.k, sh.n, len(out), len(out)-1, len(out))
		case sh.header.Scenario != first.header.Scenario || sh.header.Seed != first.header.Seed:
			return nil, scenarios.Usagef("merge: %s is %s seed %d, %s is %s seed %d: not one run", sh.path, sh.header.Scenario, sh.header.Seed,
				first.path, first.header.Scenario, first.header.Seed)
		case !slices.Equal(withoutShard(sh.header.Args), withoutShard(first.header.Args)):
			return nil, scenarios.Usagef("merge: %s and %s ran with other arguments (%s vs %s)", sh.path, first.path,
				strings.Join(withoutShard(sh.header.Args), " "), strings.Join(withoutShard(first.header.Args), " "))
		}
	}
	return out, nil
}

// readShard reads the history at path (or the one history in directory path).
func readShard(path string) (shardHistory, error) {
	sh := shardHistory{path: path}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		files, _ := filepath.Glob(filepath.Join(path, "*"+historySuffix))
		if len(files) != 1 {
			return sh, scenarios.Usagef("merge: %s holds %d saved histories (*%s); want one shard's --out directory", path, len(files), historySuffix)
		}
		sh.path = files[0]
	}
	var err error
	if sh.header, sh.history, err = readHistoryFile(sh.path); err != nil {
		return sh, scenarios.Usagef("merge: %v", err)
	}
	v := argValue(sh.header.Args, "shard")
	if _, err := fmt.Sscanf(v, "%d/%d", &sh.k, &sh.n); err != nil || sh.n < 2 {
		return sh, scenarios.Usagef("merge: %s was not recorded by a shard (--shard %q)", sh.path, v)
	}
	return sh, nil
}

// argValue returns the value of --name=value in saved args ("" if absent).
func argValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

// withoutShard returns args without the flags in which shards differ.
func withoutShard(args []string) []string {
	var out []string
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !slices.Contains(shardFlags, name) {
			out = append(out, a)
		}
	}
	return out
}

// mergeShards combines the shards' histories and judges the result as one
// run with the whole fleet (--shard 0/1).
func mergeShards(shards []shardHistory) (*repeated, error) {
	hdr := shards[0].header
	spec, err := lookup(hdr.Scenario)
	if err != nil {
		return nil, err
	}
	args := append(withoutShard(hdr.Args), "--shard=0/1")
	common, cfg, params, err := scenarios.ParseSaved(spec, args)
	if err != nil {
		return nil, fmt.Errorf("merge: the saved arguments no longer parse: %w", err)
	}
	dm, ok := cfg.(dataMerger)
	if !ok {
		return nil, scenarios.Usagef("merge: %s cannot merge shards", hdr.Scenario)
	}
	h, err := mergeHistories(shards, dm)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	meta := history.NewMeta(time.Now())
	for _, sh := range shards {
		if sh.header.Meta != nil {
			meta.World.Add(sh.header.Meta.World)
		}
	}
	res := judge(spec, cfg, h, hdr.Seed, params, 0, meta)
	res.Conclude(fmt.Sprintf("Merged from %d shards' histories (%s).", len(shards), shardPaths(shards)))
	saved := savedHistory{header: history.HistoryHeader{Scenario: spec.Name, Args: scenarios.SavedArgs(common, params), Seed: hdr.Seed, Meta: meta},
		history: h}
	return &repeated{name: spec.Name, result: res, histories: []savedHistory{saved}}, nil
}

func shardPaths(shards []shardHistory) string {
	ps := make([]string, len(shards))
	for i, sh := range shards {
		ps[i] = sh.path
	}
	return strings.Join(ps, ", ")
}

// mergeHistories concatenates the shards' ops (sorted by start), keeps
// each event once (the same kind, phase and label within eventSlack of an
// earlier one is the same event seen by another shard), takes the longest
// timeline and merges the scenario's data.
func mergeHistories(shards []shardHistory, dm dataMerger) (*history.History, error) {
	h := &history.History{}
	var datas []json.RawMessage
	for _, sh := range shards {
		h.Ops = append(h.Ops, sh.history.Ops...)
		h.Events = append(h.Events, sh.history.Events...)
		h.Timeline = max(h.Timeline, sh.history.Timeline)
		datas = append(datas, sh.history.Data)
	}
	sort.SliceStable(h.Ops, func(i, j int) bool { return h.Ops[i].Start < h.Ops[j].Start })
	h.Events = dedupEvents(h.Events)
	data, err := dm.MergeData(datas)
	if err != nil {
		return nil, err
	}
	h.Data = data
	return h, nil
}

// eventSlack is how far apart two shards may see one scheduled event.
const eventSlack = 2 * time.Second

func dedupEvents(es history.Events) history.Events {
	sort.SliceStable(es, func(i, j int) bool { return es[i].At < es[j].At })
	var out history.Events
	for _, e := range es {
		dup := false
		for k := len(out) - 1; k >= 0 && e.At-out[k].At <= eventSlack; k-- {
			o := out[k]
			dup = dup || (o.Kind == e.Kind && o.Phase == e.Phase && o.Label == e.Label && o.Err == e.Err)
		}
		if !dup {
			out = append(out, e)
		}
	}
	return out
}
