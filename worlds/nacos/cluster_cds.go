package nacos

import (
	"context"
	"fmt"
	"os"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
	"sdchaos/ports"
)

// runFiles are what every member of one cluster runs.
type runFiles struct {
	alloc *ports.Allocator
	// jar is the built jar, or with CDS its extracted application jar.
	jar string
	// archive is the CDS archive members map (-XX:SharedArchiveFile); "" without CDS.
	archive string
	// train is where a training run writes its archive at exit (-XX:ArchiveClassesAtExit).
	train string
}

// cdsArgs are the JVM's class-data-sharing options.
func (r runFiles) cdsArgs() []string {
	switch {
	case r.train != "":
		return []string{"-XX:ArchiveClassesAtExit=" + r.train}
	case r.archive != "":
		return []string{"-XX:SharedArchiveFile=" + r.archive}
	}
	return nil
}

// prepareRun builds (or finds) the jar and, with CDS, its extracted layout and archive; the
// archive is made by a training run on first use of a jar with this Java runtime.
func prepareRun(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, spec ClusterSpec) (runFiles, error) {
	jar, err := jvm.Build(ctx, jvm.NacosServer, spec.Member.Logf)
	if err != nil {
		return runFiles{}, err
	}
	if !spec.CDS {
		return runFiles{alloc: alloc, jar: jar}, nil
	}
	app, err := jvm.Extracted(ctx, jar)
	if err != nil {
		return runFiles{}, err
	}
	archive, ok, err := jvm.SharedArchive(app)
	if err != nil {
		return runFiles{}, err
	}
	if !ok {
		if err := trainArchive(ctx, sup, alloc, spec, app, archive); err != nil {
			return runFiles{}, err
		}
	}
	return runFiles{alloc: alloc, jar: app, archive: archive}, nil
}

// trainArchive writes the CDS archive: it starts one member alone (cluster mode, a
// cluster.conf naming only itself, so JRaft elects it at once; no data warm-up, since Distro
// has no peer to load from) with -XX:ArchiveClassesAtExit, waits for its readiness, ends it with
// SIGTERM (the JVM writes the archive of every class it loaded from the class path while it
// exits) and moves the archive into place. Under the build lock: one writer per jar.
func trainArchive(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, spec ClusterSpec, app, archive string) error {
	unlock, err := jvm.LockArchive(app)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(archive); err == nil {
		return nil // written by another process while we waited
	}
	logf := spec.Member.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	logf("writing the CDS archive of the Nacos server for this Java runtime (once per built jar): %s", archive)
	t0 := time.Now()
	train := spec
	train.Size, train.Hosts, train.DataWarmup = 1, nil, false
	train.Member.Name = spec.Member.Name + "-cds"
	tmp := archive + ".tmp"
	_ = os.Remove(tmp)
	members, err := newMembers(sup, train, runFiles{alloc: alloc, jar: app, train: tmp})
	if err != nil {
		return fmt.Errorf("writing the CDS archive: %w", err)
	}
	if err := members[0].start(ctx); err != nil {
		return fmt.Errorf("writing the CDS archive: %w", err)
	}
	if err := jvm.EndForArchive(members[0].Server().child, 2*time.Minute, members[0].Server().LogPath()); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing the CDS archive: %w", err)
	}
	if err := os.Rename(tmp, archive); err != nil {
		return fmt.Errorf("writing the CDS archive: %w", err)
	}
	logf("wrote the CDS archive in %.1f s", time.Since(t0).Seconds())
	return nil
}

// standaloneClassData returns the jar a standalone server runs and its class-data-sharing
// options: the extracted application jar and the cluster's archive (the same classes, the same
// class path; a class standalone mode loads and the archive lacks is loaded as usual), written
// first by a one-member training run when there is none yet. With spec.NoCDS, the built jar and
// none.
func standaloneClassData(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, spec ServerSpec, jar string) (string, []string, error) {
	if spec.NoCDS {
		return jar, nil, nil
	}
	train := DefaultClusterSpec()
	train.Member.Logf = spec.Logf
	run, err := prepareRun(ctx, sup, alloc, train)
	if err != nil {
		return "", nil, err
	}
	return run.jar, run.cdsArgs(), nil
}
