package jvm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync"
)

// Piece names one Maven project under jvm/projects/.
type Piece string

var (
	srcMu   sync.Mutex
	sources = map[Piece]fs.FS{}
)

// register makes piece's sources known; fsys holds projects/<piece>/….
// Each piece's file calls it from init with its own embed.FS.
func register(piece Piece, fsys fs.FS) {
	srcMu.Lock()
	defer srcMu.Unlock()
	if _, dup := sources[piece]; dup {
		panic("jvm: duplicate piece " + string(piece))
	}
	sub, err := fs.Sub(fsys, path.Join("projects", string(piece)))
	if err != nil {
		panic("jvm: piece " + string(piece) + ": " + err.Error())
	}
	sources[piece] = sub
}

// Pieces returns the names of every embedded piece, sorted.
func Pieces() []Piece {
	srcMu.Lock()
	defer srcMu.Unlock()
	out := make([]Piece, 0, len(sources))
	for p := range sources {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func sourcesOf(piece Piece) (fs.FS, error) {
	srcMu.Lock()
	defer srcMu.Unlock()
	f, ok := sources[piece]
	if !ok {
		return nil, fmt.Errorf("no JVM piece %q in this harness (known: %v)", piece, Pieces())
	}
	return f, nil
}

// hashOf returns a hex digest of every file's path and content in fsys.
func hashOf(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := fsys.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\x00", p)
		_, err = io.Copy(h, f)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("hashing the sources: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// extract copies every file of fsys under dir.
func extract(fsys fs.FS, dir string) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}
