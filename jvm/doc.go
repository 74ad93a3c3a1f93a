// Package jvm builds the repository's JVM pieces (real Eureka and Nacos
// servers, Java discovery clients) with Maven on first use and finds the
// Java runtime that runs them.
//
// Each piece is one Maven project under jvm/projects/<piece>/, embedded in
// the harness binary (its pom.xml and src/ only), so a built harness carries
// its JVM sources. Build copies a piece's sources into the user's cache
// (os.UserCacheDir()/sdchaos/jvm/<piece>-<hash of the sources>/), runs
// `mvn -B -q -DskipTests package` there once and returns the jar the build
// leaves at target/app.jar. A later run with the same sources reuses that
// jar; a change to any source file builds anew. One build runs at a time on
// the machine (a file lock), so parallel test packages wait for each other
// instead of racing in ~/.m2.
//
// What a built piece holds is read from its jar, never typed by hand:
// InventoryOf (Inspect) names every library under BOOT-INF/lib/ by its own
// pom.properties, Netflix's manifest title or its file name, with the
// piece's parent, imported BOMs and application.properties, and caches it
// beside the jar (target/app.jar.inventory.json). Inventory.Components
// turns the artifacts a world names into a run's components (a library
// whose classes belong to another organization than its group says it is
// a third-party republication); Runtime asks the java executable for its
// version; ArgSettings and AppSettings turn a JVM's command line and the
// piece's properties into the settings a run's metadata records.
//
// Errors: ErrNoJava and ErrNoMaven when the tool is not found, ErrBuild when
// Maven fails (the error names the build log). The command maps all three to
// its environment exit code (4).
package jvm
