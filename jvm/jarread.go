package jvm

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// libDir is where a Spring Boot jar keeps its libraries.
const libDir = "BOOT-INF/lib/"

// appProperties is a Spring Boot piece's own properties file.
const appProperties = "BOOT-INF/classes/application.properties"

// projectPoms is where a piece's jar holds its own pom: every piece's
// groupId is sdchaos (a shaded jar holds other poms beside it).
const projectPoms = "META-INF/maven/sdchaos/"

// Inspect reads a built piece's runnable jar (a Spring Boot jar): the
// piece's own pom (META-INF/maven/…), the launcher's version from the
// manifest, and the coordinates of every library under BOOT-INF/lib/, each
// from its own jar (see Lib.From).
func Inspect(jar string) (Inventory, error) {
	f, err := os.Open(jar)
	if err != nil {
		return Inventory{}, fmt.Errorf("reading %s: %w", jar, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Inventory{}, fmt.Errorf("reading %s: %w", jar, err)
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return Inventory{}, fmt.Errorf("reading %s as a jar: %w", jar, err)
	}
	inv := Inventory{Format: inventoryFormat, JarSize: st.Size()}
	repo := localRepository()
	for _, e := range zr.File {
		if err := inv.read(f, e, repo); err != nil {
			return Inventory{}, fmt.Errorf("reading %s in %s: %w", e.Name, jar, err)
		}
	}
	sortLibs(inv.Libs)
	return inv, nil
}

// read takes what the inventory needs from one entry of the outer jar.
func (inv *Inventory) read(outer io.ReaderAt, e *zip.File, repo string) error {
	switch {
	case e.Name == "META-INF/MANIFEST.MF":
		m, err := readManifest(e)
		inv.BootLauncher = m["Spring-Boot-Version"]
		return err
	case strings.HasPrefix(e.Name, projectPoms) && path.Base(e.Name) == "pom.properties":
		p, err := readProperties(e)
		inv.Project = Coord{Group: p["groupId"], Artifact: p["artifactId"], Version: p["version"]}
		return err
	case strings.HasPrefix(e.Name, projectPoms) && path.Base(e.Name) == "pom.xml":
		b, err := readAll(e)
		if err != nil {
			return err
		}
		pom, err := parsePom(b)
		inv.Parent, inv.Imports, inv.Properties = pom.Parent, pom.Imports, pom.Properties
		return err
	case e.Name == appProperties:
		p, err := readProperties(e)
		inv.AppProperties = p
		return err
	case strings.HasPrefix(e.Name, libDir) && strings.HasSuffix(e.Name, ".jar"):
		zr, err := openNested(outer, e)
		if err != nil {
			return err
		}
		inv.Libs = append(inv.Libs, libOf(path.Base(e.Name), zr, repo))
	}
	return nil
}

// openNested opens a jar inside a jar: in place when it is stored (Spring
// Boot stores its libraries uncompressed), else from memory.
func openNested(outer io.ReaderAt, e *zip.File) (*zip.Reader, error) {
	if e.Method == zip.Store {
		off, err := e.DataOffset()
		if err != nil {
			return nil, err
		}
		size := int64(e.UncompressedSize64)
		return zip.NewReader(io.NewSectionReader(outer, off, size), size)
	}
	b, err := readAll(e)
	if err != nil {
		return nil, err
	}
	return zip.NewReader(bytes.NewReader(b), int64(len(b)))
}

// libOf names one library from its own jar: the pom.properties that
// matches its file name, else Netflix's manifest title, else its file name.
func libOf(name string, zr *zip.Reader, repo string) Lib {
	l := Lib{Jar: name, Package: mainPackage(zr)}
	var manifest map[string]string
	var pomXML *zip.File
	for _, e := range zr.File {
		switch {
		case e.Name == "META-INF/MANIFEST.MF":
			manifest, _ = readManifest(e)
		case strings.HasPrefix(e.Name, "META-INF/maven/") && path.Base(e.Name) == "pom.properties" && l.From == "":
			p, err := readProperties(e)
			if err == nil && matchesName(name, p["artifactId"], p["version"]) {
				l.Coord, l.From = Coord{Group: p["groupId"], Artifact: p["artifactId"], Version: p["version"]}, FromPomProperties
				pomXML = findFile(zr, path.Join(path.Dir(e.Name), "pom.xml"))
			}
		}
	}
	if l.From == "" {
		l.fromManifestOrName(name, manifest)
	}
	if pomXML != nil && l.Package != "" && !sameOrganization(l.Group, l.Package) {
		l.Parent, l.ParentSCMTag = parentSCM(pomXML, repo)
	}
	return l
}

// fromManifestOrName names a library without a matching pom.properties.
func (l *Lib) fromManifestOrName(name string, manifest map[string]string) {
	if g, a, v, ok := parseNebulaTitle(manifest["Implementation-Title"]); ok && matchesName(name, a, v) {
		l.Coord, l.From = Coord{Group: g, Artifact: a, Version: v}, FromManifest
		return
	}
	a, v, ok := splitJarName(name, manifest["Implementation-Version"])
	if !ok {
		a, v = strings.TrimSuffix(name, ".jar"), ""
	}
	l.Coord, l.From = Coord{Artifact: a, Version: v}, FromJarName
}

// matchesName reports whether a jar called name is artifact's version
// (artifact-version.jar, or with a classifier after the version).
func matchesName(name, artifact, version string) bool {
	base := strings.TrimSuffix(name, ".jar")
	stem := artifact + "-" + version
	return artifact != "" && version != "" && (base == stem || strings.HasPrefix(base, stem+"-"))
}

// mainPackage returns the package (cut to three segments) that holds most
// of the jar's classes, or "".
func mainPackage(zr *zip.Reader) string {
	count := map[string]int{}
	best := ""
	for _, e := range zr.File {
		if !strings.HasSuffix(e.Name, ".class") || strings.HasPrefix(e.Name, "META-INF/") {
			continue
		}
		segs := strings.Split(path.Dir(e.Name), "/")
		p := strings.Join(segs[:min(3, len(segs))], ".")
		if p == "." {
			continue
		}
		count[p]++
		if count[p] > count[best] || (count[p] == count[best] && p < best) {
			best = p
		}
	}
	return best
}

// parentSCM reads the parent named in a library's pom.xml and, in the local
// Maven repository, the scm tag that parent declares.
func parentSCM(pomXML *zip.File, repo string) (parent, tag string) {
	b, err := readAll(pomXML)
	if err != nil {
		return "", ""
	}
	pom, err := parsePom(b)
	if err != nil || pom.Parent.Artifact == "" || pom.Parent.Group == "" {
		return "", ""
	}
	p := pom.Parent
	parent = p.String()
	if repo == "" {
		return parent, ""
	}
	file := filepath.Join(repo, filepath.FromSlash(strings.ReplaceAll(p.Group, ".", "/")), p.Artifact, p.Version,
		p.Artifact+"-"+p.Version+".pom")
	data, err := os.ReadFile(file)
	if err != nil {
		return parent, ""
	}
	if pp, err := parsePom(data); err == nil {
		tag = pp.SCMTag
	}
	return parent, tag
}

// localRepository is Maven's default local repository (~/.m2/repository),
// or "" when there is no home directory.
func localRepository() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".m2", "repository")
}

func findFile(zr *zip.Reader, name string) *zip.File {
	for _, e := range zr.File {
		if e.Name == name {
			return e
		}
	}
	return nil
}

func readAll(e *zip.File) ([]byte, error) {
	rc, err := e.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, 16<<20))
}

func readManifest(e *zip.File) (map[string]string, error) {
	b, err := readAll(e)
	return parseManifest(bytes.NewReader(b)), err
}

func readProperties(e *zip.File) (map[string]string, error) {
	b, err := readAll(e)
	return parseProperties(bytes.NewReader(b)), err
}
