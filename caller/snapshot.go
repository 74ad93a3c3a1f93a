package caller

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// snapshotVersion is the format version written by SaveSnapshot.
const snapshotVersion = 1

// snapshotFile is the on-disk form of a caller's instance list (like Nacos's
// naming disk cache, loaded at start with namingLoadCacheAtStart).
type snapshotFile struct {
	Version   int        `json:"version"`
	SavedAt   time.Time  `json:"saved_at"`
	Endpoints []Endpoint `json:"endpoints"`
}

// SaveSnapshot writes eps to path atomically: a temp file in the same
// directory, fsynced, then renamed over path, so a reader never sees a
// half-written file.
func SaveSnapshot(path string, eps []Endpoint) error {
	b, err := json.Marshal(snapshotFile{Version: snapshotVersion, SavedAt: time.Now(), Endpoints: eps})
	if err != nil {
		return fmt.Errorf("encoding snapshot: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("writing snapshot: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("syncing snapshot: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("installing snapshot: %w", err)
	}
	return nil
}

// ErrNoSnapshot is returned by LoadSnapshot when the file does not exist.
var ErrNoSnapshot = errors.New("no snapshot")

// LoadSnapshot reads a snapshot written by SaveSnapshot. A missing file is
// ErrNoSnapshot; an empty, truncated or otherwise invalid one is an error
// saying what is wrong. It never panics.
func LoadSnapshot(path string) ([]Endpoint, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNoSnapshot)
	}
	if err != nil {
		return nil, fmt.Errorf("reading snapshot: %w", err)
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("snapshot %s is empty", path)
	}
	var f snapshotFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("snapshot %s is corrupt: %w", path, err)
	}
	if f.Version != snapshotVersion {
		return nil, fmt.Errorf("snapshot %s has version %d, want %d", path, f.Version, snapshotVersion)
	}
	for _, ep := range f.Endpoints {
		if _, _, err := net.SplitHostPort(ep.Addr); err != nil || ep.ID == "" {
			return nil, fmt.Errorf("snapshot %s lists a bad endpoint %+v", path, ep)
		}
	}
	return f.Endpoints, nil
}
