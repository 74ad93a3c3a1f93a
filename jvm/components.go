package jvm

import (
	"context"
	"fmt"

	"sdchaos/history"
)

// Want names an artifact a world reports as a component of its runs; the
// version always comes from the built jar.
type Want struct {
	Name string
	Role history.Role
	// Group and Artifact name a library under BOOT-INF/lib/ (Group empty:
	// a jar that names no group, such as Spring's Gradle-built ones), or,
	// with BOM set, a BOM the piece's pom imports.
	Group, Artifact string
	BOM             bool
	Note            string
}

// notInJar is the version of a wanted artifact the built jar does not hold.
const notInJar = "not in the built jar"

// Components returns the wanted artifacts of the piece's inventory as
// components used by usedBy, each with the version its jar (or the piece's
// pom, for a BOM) gives and where it was read; one the jar lacks is listed
// with the version "not in the built jar".
func (inv Inventory) Components(piece Piece, usedBy string, wants ...Want) []history.Component {
	out := make([]history.Component, 0, len(wants))
	for _, w := range wants {
		c := history.Component{Name: w.Name, Role: w.Role, UsedBy: usedBy, Note: w.Note,
			Coordinates: Coord{Group: w.Group, Artifact: w.Artifact}.Name(), Version: notInJar}
		switch l, ok := inv.Find(w.Group, w.Artifact); {
		case w.BOM:
			if b, ok := inv.Import(w.Artifact); ok {
				c.Coordinates, c.Version = b.Name(), b.Version
				c.Source = fmt.Sprintf("a BOM imported by the built %s jar's pom.xml (META-INF/maven/%s/%s/pom.xml)", piece, inv.Project.Group, inv.Project.Artifact)
			}
		case ok:
			c.Coordinates, c.Version, c.Republication = l.Name(), l.Version, l.Republished()
			c.Source = fmt.Sprintf("%s of %s%s in the built %s jar", l.From, libDir, l.Jar, piece)
		}
		out = append(out, c)
	}
	return out
}

// Launcher returns the Spring Boot loader that starts the piece's jar (the
// manifest's Spring-Boot-Version) as a component used by usedBy.
func (inv Inventory) Launcher(piece Piece, usedBy, note string) history.Component {
	v := inv.BootLauncher
	if v == "" {
		v = notInJar
	}
	return history.Component{Name: "Spring Boot loader", Role: history.RoleFramework, Coordinates: "spring-boot-loader",
		Version: v, UsedBy: usedBy, Source: fmt.Sprintf("Spring-Boot-Version in the built %s jar's manifest", piece), Note: note}
}

// RuntimeComponent returns the Java runtime (Runtime) as a component used
// by usedBy; a runtime that cannot be asked is listed with the error as
// its version.
func RuntimeComponent(ctx context.Context, usedBy string) history.Component {
	r, err := Runtime(ctx)
	if err != nil {
		return history.Component{Name: "Java runtime", Role: history.RoleRuntime, Version: "unknown: " + err.Error(), UsedBy: usedBy}
	}
	return r.Component(usedBy)
}
