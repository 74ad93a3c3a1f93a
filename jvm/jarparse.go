package jvm

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"unicode"
)

// How a library's coordinates were read (Lib.From).
const (
	// FromPomProperties: the jar's own META-INF/maven/<group>/<artifact>/pom.properties (a Maven build).
	FromPomProperties = "pom.properties"
	// FromManifest: its manifest's Implementation-Title "group#artifact;version" (Netflix's Gradle plugin).
	FromManifest = "manifest Implementation-Title"
	// FromJarName: its file name, artifact-version.jar, checked against its
	// manifest's Implementation-Version where it has one (a Gradle-built
	// jar such as Spring's carries no group).
	FromJarName = "jar name"
)

// parseProperties reads a Java .properties file's key=value (or key:value)
// lines; comments and blank lines are skipped.
func parseProperties(r io.Reader) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		i := strings.IndexAny(line, "=:")
		if i < 0 {
			out[line] = ""
			continue
		}
		out[strings.TrimSpace(line[:i])] = strings.TrimSpace(line[i+1:])
	}
	return out
}

// parseManifest reads a jar manifest's main section (continuation lines,
// which start with one space, are joined).
func parseManifest(r io.Reader) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	last := ""
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case line == "":
			return out // the main section ends at the first blank line
		case strings.HasPrefix(line, " ") && last != "":
			out[last] += line[1:]
		default:
			k, v, ok := strings.Cut(line, ":")
			if ok {
				last = strings.TrimSpace(k)
				out[last] = strings.TrimSpace(v)
			}
		}
	}
	return out
}

// parseNebulaTitle parses Netflix's Implementation-Title
// "com.netflix.eureka#eureka-core;2.0.6" into its coordinates.
func parseNebulaTitle(title string) (group, artifact, version string, ok bool) {
	g, rest, ok1 := strings.Cut(title, "#")
	a, v, ok2 := strings.Cut(rest, ";")
	if !ok1 || !ok2 || g == "" || a == "" || v == "" || strings.ContainsAny(g, " /") {
		return "", "", "", false
	}
	return g, a, v, true
}

// splitJarName splits "artifact-version[-classifier].jar" into artifact and
// version. With a known version (the manifest's Implementation-Version)
// the name must end in -version.jar or contain -version-; without one the
// version starts at the first "-" followed by a digit.
func splitJarName(name, version string) (artifact, ver string, ok bool) {
	base, isJar := strings.CutSuffix(name, ".jar")
	if !isJar || base == "" {
		return "", "", false
	}
	if version != "" {
		if a, found := strings.CutSuffix(base, "-"+version); found && a != "" {
			return a, version, true
		}
		if i := strings.Index(base, "-"+version+"-"); i > 0 {
			return base[:i], version, true
		}
	}
	for i := 0; i+1 < len(base); i++ {
		if base[i] == '-' && unicode.IsDigit(rune(base[i+1])) && i > 0 {
			return base[:i], base[i+1:], true
		}
	}
	return "", "", false
}

// Coord is a Maven artifact's coordinates.
type Coord struct {
	Group    string `json:"group,omitempty" xml:"groupId"`
	Artifact string `json:"artifact" xml:"artifactId"`
	Version  string `json:"version" xml:"version"`
}

// String returns group:artifact:version (artifact:version without a group).
func (c Coord) String() string { return c.Name() + ":" + c.Version }

// Name returns group:artifact (the artifact alone without a group).
func (c Coord) Name() string { return strings.TrimPrefix(c.Group+":"+c.Artifact, ":") }

// pomInfo is what the harness reads in a pom.xml: its parent, its
// <properties>, the BOMs its dependencyManagement imports (versions
// resolved from the properties) and its <scm><tag>.
type pomInfo struct {
	Parent     Coord
	Properties map[string]string
	Imports    []Coord
	SCMTag     string
}

// pomDoc is the part of a pom.xml that parsePom reads.
type pomDoc struct {
	Parent     Coord `xml:"parent"`
	Properties struct {
		Items []struct {
			XMLName xml.Name
			Value   string `xml:",chardata"`
		} `xml:",any"`
	} `xml:"properties"`
	Managed []struct {
		Coord
		Type  string `xml:"type"`
		Scope string `xml:"scope"`
	} `xml:"dependencyManagement>dependencies>dependency"`
	SCM struct {
		Tag string `xml:"tag"`
	} `xml:"scm"`
}

// parsePom reads a pom.xml's parent, properties, imported BOMs and scm tag.
func parsePom(data []byte) (pomInfo, error) {
	var doc pomDoc
	if err := xml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return pomInfo{}, err
	}
	out := pomInfo{Parent: trimCoord(doc.Parent), Properties: map[string]string{}, SCMTag: strings.TrimSpace(doc.SCM.Tag)}
	for _, it := range doc.Properties.Items {
		out.Properties[it.XMLName.Local] = strings.TrimSpace(it.Value)
	}
	for _, d := range doc.Managed {
		if strings.TrimSpace(d.Scope) == "import" && strings.TrimSpace(d.Type) == "pom" {
			c := trimCoord(d.Coord)
			c.Version = expand(c.Version, out.Properties)
			out.Imports = append(out.Imports, c)
		}
	}
	return out, nil
}

func trimCoord(c Coord) Coord {
	return Coord{Group: strings.TrimSpace(c.Group), Artifact: strings.TrimSpace(c.Artifact), Version: strings.TrimSpace(c.Version)}
}

// expand replaces ${name} with the pom's property name (left as it is when
// the pom does not define it; at most 10 rounds, so a property that names
// itself ends).
func expand(v string, props map[string]string) string {
	for range 10 {
		i := strings.Index(v, "${")
		j := strings.Index(v[max(i, 0):], "}")
		if i < 0 || j < 0 {
			return v
		}
		name := v[i+2 : i+j]
		val, ok := props[name]
		if !ok {
			return v
		}
		v = v[:i] + val + v[i+j+1:]
	}
	return v
}
