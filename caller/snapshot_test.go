package caller

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSnapshotRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snap.json")
	if err := SaveSnapshot(path, abc); err != nil {
		t.Fatal(err)
	}
	got, err := LoadSnapshot(path)
	if err != nil || len(got) != 3 || got[1] != b {
		t.Fatalf("LoadSnapshot = %v, %v", got, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temp files left next to the snapshot: %v", entries)
	}
}

func TestLoadSnapshotBadFiles(t *testing.T) {
	good, _ := os.ReadFile(func() string {
		p := filepath.Join(t.TempDir(), "good.json")
		if err := SaveSnapshot(p, abc); err != nil {
			t.Fatal(err)
		}
		return p
	}())
	tests := []struct {
		name    string
		content []byte // nil = file missing
		want    string
	}{
		{"missing", nil, "no snapshot"},
		{"empty", []byte{}, "is empty"},
		{"truncated", good[:len(good)/2], "corrupt"},
		{"garbage", []byte("\x00\xffnot json"), "corrupt"},
		{"wrong version", []byte(`{"version":7,"endpoints":[]}`), "version 7"},
		{"bad endpoint", []byte(`{"version":1,"endpoints":[{"ID":"j1","Addr":"nohostport"}]}`), "bad endpoint"},
		{"null", []byte(`null`), "version 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "snap.json")
			if tc.content != nil {
				if err := os.WriteFile(path, tc.content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			eps, err := LoadSnapshot(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || eps != nil {
				t.Fatalf("LoadSnapshot = %v, %v; want an error containing %q", eps, err, tc.want)
			}
			if tc.content == nil && !errors.Is(err, ErrNoSnapshot) {
				t.Errorf("missing file: %v is not ErrNoSnapshot", err)
			}
		})
	}
}
