package zookeeper

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"
)

// TestShortVersion: srvr's version line is cut to the release.
func TestShortVersion(t *testing.T) {
	for in, want := range map[string]string{
		"3.9.5-8a9c8c9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a, built on 2025-10-01 10:00 UTC": "3.9.5",
		"3.8.4": "3.8.4",
	} {
		if got := shortVersion(in); got != want {
			t.Errorf("shortVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJarProperties reads a pom.properties the shade plugin keeps in a jar.
func TestJarProperties(t *testing.T) {
	jar := filepath.Join(t.TempDir(), "app.jar")
	f, err := os.Create(jar)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, err := zw.Create("META-INF/maven/org.apache.zookeeper/zookeeper/pom.properties")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("#Created by Maven\nartifactId=zookeeper\ngroupId=org.apache.zookeeper\nversion=3.9.5\n")); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := jarProperties(jar, "META-INF/maven/org.apache.zookeeper/zookeeper/pom.properties")
	if err != nil || p["version"] != "3.9.5" || p["groupId"] != "org.apache.zookeeper" {
		t.Errorf("jarProperties = %v, %v; want version 3.9.5 of org.apache.zookeeper", p, err)
	}
	if _, err := jarProperties(jar, "META-INF/maven/x/y/pom.properties"); err == nil {
		t.Error("a missing entry is not an error")
	}
}
