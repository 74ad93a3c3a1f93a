package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sdchaos/history"
)

// TestStoredResultsCameFromCommits: every stored result under results/ was made, and re-judged
// if it was, by a harness built from a commit, not from a tree with uncommitted changes, so
// that each number the docs quote can be traced to the code that measured and judged it.
func TestStoredResultsCameFromCommits(t *testing.T) {
	root := filepath.Join("..", "..", "results")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var r struct {
			// Harness is a summary's own (the matrix's): made from the cells, by this harness.
			Harness string `json:"harness"`
			Meta    *struct {
				Harness  string `json:"harness"`
				Rejudged *struct {
					Harness string `json:"harness"`
				} `json:"rejudged"`
			} `json:"meta"`
		}
		if json.Unmarshal(b, &r) != nil {
			return nil // a sweep's summary, a list: its points carry the meta
		}
		rel, _ := filepath.Rel(root, path)
		if strings.Contains(r.Harness, history.Uncommitted) {
			t.Errorf("results/%s was built by %s: build it again from a commit", rel, r.Harness)
		}
		if r.Meta == nil {
			return nil // a summary: its runs carry the meta
		}
		n++
		if strings.Contains(r.Meta.Harness, history.Uncommitted) {
			t.Errorf("results/%s was made by %s: run it again from a commit", rel, r.Meta.Harness)
		}
		if r.Meta.Rejudged != nil && strings.Contains(r.Meta.Rejudged.Harness, history.Uncommitted) {
			t.Errorf("results/%s was re-judged by %s: recheck --write it from a commit", rel, r.Meta.Rejudged.Harness)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no stored result with its meta under results/")
	}
}
