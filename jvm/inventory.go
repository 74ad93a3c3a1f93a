package jvm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
)

// inventoryFormat is the version of the cached inventory's layout; a cache
// of another version is read anew from the jar.
const inventoryFormat = 1

// Lib is one library packed in a built piece (a jar under BOOT-INF/lib/),
// named by what the library's own jar says.
type Lib struct {
	Coord
	// Jar is its file name under BOOT-INF/lib/.
	Jar string `json:"jar"`
	// From says how the coordinates were read: FromPomProperties,
	// FromManifest or FromJarName (no group then).
	From string `json:"from"`
	// Package is the Java package most of its classes are in, cut to three
	// segments ("com.alibaba.nacos"); empty for a jar without classes.
	Package string `json:"package,omitempty"`
	// Parent and ParentSCMTag are its pom's parent and the <scm><tag> that
	// parent declares (read in the local Maven repository), recorded only
	// for a library whose group does not own its package (see Republished).
	Parent       string `json:"parent,omitempty"`
	ParentSCMTag string `json:"parent_scm_tag,omitempty"`
}

// Inventory is what a built piece's jar says about what it holds.
type Inventory struct {
	Format  int   `json:"format"`
	JarSize int64 `json:"jar_size"`
	// Project is the piece's own artifact (sdchaos:<piece>); Parent,
	// Imports and Properties are its pom.xml's parent, imported BOMs and
	// properties, as the build used them.
	Project    Coord             `json:"project"`
	Parent     Coord             `json:"parent"`
	Imports    []Coord           `json:"imports,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
	// BootLauncher is the manifest's Spring-Boot-Version: the Spring Boot
	// loader that starts the jar.
	BootLauncher string `json:"boot_launcher,omitempty"`
	// AppProperties is the piece's own BOOT-INF/classes/application.properties.
	AppProperties map[string]string `json:"app_properties,omitempty"`
	Libs          []Lib             `json:"libs"`
}

// Find returns the library artifact of group (any group when empty).
func (inv Inventory) Find(group, artifact string) (Lib, bool) {
	for _, l := range inv.Libs {
		if l.Artifact == artifact && (group == "" || l.Group == group) {
			return l, true
		}
	}
	return Lib{}, false
}

// Import returns the imported BOM artifact.
func (inv Inventory) Import(artifact string) (Coord, bool) {
	for _, c := range inv.Imports {
		if c.Artifact == artifact {
			return c, true
		}
	}
	return Coord{}, false
}

// Republished says whether the library is a republication by someone who
// does not own its code: its classes live in a package of another
// organization than its group ("com.alibaba.nacos" classes under
// "io.github.pig-mesh.nacos"). It returns the sentence that says so, or "".
func (l Lib) Republished() string {
	if l.Group == "" || l.Package == "" || sameOrganization(l.Group, l.Package) {
		return ""
	}
	s := fmt.Sprintf("a third-party republication: its classes are in package %s, its groupId is %s", l.Package, l.Group)
	if l.ParentSCMTag != "" {
		s += fmt.Sprintf("; its parent pom %s names the upstream scm tag %s", l.Parent, l.ParentSCMTag)
	}
	return s
}

// RepublishedBrief is Republished in a few words, for a report's header:
// whose code it is and the upstream tag ("" when it is no republication).
func (l Lib) RepublishedBrief() string {
	if l.Republished() == "" {
		return ""
	}
	s := "a third-party republication of " + l.Package + " code"
	if l.ParentSCMTag != "" {
		s += ", upstream scm tag " + l.ParentSCMTag
	}
	return s
}

// hostedPrefixes are reverse domains of code hosts, under which the
// organization is the third segment (io.github.<user>).
var hostedPrefixes = []string{"io.github", "com.github", "io.gitlab", "com.gitlab", "io.gitee", "com.gitee"}

// sameOrganization reports whether Maven group g and Java package p belong
// to one organization: they share the first two segments of their reverse
// domain (three under a code host's), dashes aside (a package cannot hold
// one: io.github.x-stream writes io.github.xstream).
func sameOrganization(g, p string) bool {
	g = strings.NewReplacer("-", "", "_", "").Replace(g)
	gs, ps := strings.Split(g, "."), strings.Split(p, ".")
	n := 2
	if len(gs) >= 2 && slices.Contains(hostedPrefixes, gs[0]+"."+gs[1]) {
		n = 3
	}
	if len(gs) < n || len(ps) < n {
		return g == p || strings.HasPrefix(p, g+".") || strings.HasPrefix(g, p+".")
	}
	return slices.Equal(gs[:n], ps[:n])
}

// InventoryOf builds piece if needed (Build) and returns what its jar holds:
// read once from the jar and cached beside it (target/app.jar.inventory.json).
func InventoryOf(ctx context.Context, piece Piece, logf Logf) (Inventory, error) {
	jar, err := Build(ctx, piece, logf)
	if err != nil {
		return Inventory{}, err
	}
	return inventoryOfJar(jar)
}

// inventorySuffix ends the name of a jar's cached inventory, beside the jar.
const inventorySuffix = ".inventory.json"

// inventoryOfJar returns the cached inventory of jar, or reads the jar and
// caches what it read (a cache that cannot be written is not an error).
func inventoryOfJar(jar string) (Inventory, error) {
	st, err := os.Stat(jar)
	if err != nil {
		return Inventory{}, fmt.Errorf("reading the built jar: %w", err)
	}
	cache := jar + inventorySuffix
	if b, err := os.ReadFile(cache); err == nil {
		var inv Inventory
		if json.Unmarshal(b, &inv) == nil && inv.Format == inventoryFormat && inv.JarSize == st.Size() {
			return inv, nil
		}
	}
	inv, err := Inspect(jar)
	if err != nil {
		return Inventory{}, err
	}
	if b, err := json.MarshalIndent(inv, "", "  "); err == nil {
		// Named by this pid: written without the build lock, a tmp left by a killed
		// process is removed once its pid is gone (sweepStale).
		tmp := fmt.Sprintf("%s.%d.tmp", cache, os.Getpid())
		if os.WriteFile(tmp, b, 0o644) == nil && os.Rename(tmp, cache) != nil {
			_ = os.Remove(tmp)
		}
	}
	return inv, nil
}

// sortLibs orders libraries by jar name.
func sortLibs(libs []Lib) {
	sort.Slice(libs, func(i, j int) bool { return libs[i].Jar < libs[j].Jar })
}
