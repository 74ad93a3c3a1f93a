package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// plotMatrix draws a matrix's figures again (<experiment>.matrix.svg and
// .png) from the runs stored beside its matrix.json, as the command
// matrix.json names them would with --stored, writing nothing else; a
// directory without matrix.json draws none.
func plotMatrix(dir string) ([]string, error) { return plotMatrixTo(dir, dir) }

// plotMatrixTo draws the figures of the matrix stored in dir into out.
func plotMatrixTo(dir, out string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, matrixJSON))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc matrixDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", matrixJSON, err)
	}
	words := strings.Fields(doc.Command)
	i := slices.Index(words, "matrix")
	if i < 0 {
		return nil, fmt.Errorf("%s: its command %q is not a matrix's", matrixJSON, doc.Command)
	}
	o, err := parseMatrix(words[i+1:])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", matrixJSON, err)
	}
	o.out, o.stored = dir, true
	var written []string
	for _, name := range o.names {
		x, spec, err := matrixExperiment(name)
		if err != nil {
			return nil, err
		}
		runs, err := o.loadAll(context.Background(), x, spec, io.Discard)
		if err != nil {
			return nil, err
		}
		if err := writeMatrixFigure(out, x, runs); err != nil {
			return nil, err
		}
		base := filepath.Join(out, x.Name+".matrix")
		written = append(written, base+".svg", base+".png")
	}
	return written, nil
}
