package eurekareal

import (
	"context"
	"fmt"
	"os"
	"time"

	"sdchaos/childproc"
	"sdchaos/jvm"
	"sdchaos/ports"
)

// Class-data sharing for the servers: the Eureka server piece is a Spring Boot jar, whose nested
// library jars the JVM cannot archive; its extracted layout (jvm.Extracted) can, and a dynamic
// AppCDS archive of the classes a server loads up to its open registry (jvm.SharedArchive, one
// per built jar and Java runtime, in the build cache) lets every later server map them instead
// of loading and verifying them again. Three servers and their clients start on two cores, so
// the classes are most of a start's CPU.

// classData returns the jar every server runs and its JVM's class-data-sharing options: the
// extracted application jar and -XX:SharedArchiveFile, the archive written on first use by a
// training server (trainArchive). With spec.NoCDS, the built jar and none.
func classData(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, spec ClusterSpec, java, jar string) (string, []string, error) {
	if spec.NoCDS {
		return jar, nil, nil
	}
	app, err := jvm.Extracted(ctx, jar)
	if err != nil {
		return "", nil, err
	}
	archive, ok, err := jvm.SharedArchive(app)
	if err != nil {
		return "", nil, err
	}
	if !ok {
		if err := trainArchive(ctx, sup, alloc, spec, java, app, archive); err != nil {
			return "", nil, err
		}
	}
	return app, []string{"-XX:SharedArchiveFile=" + archive}, nil
}

// trainArchive writes the archive: it starts one server alone with -XX:ArchiveClassesAtExit,
// waits until its registry opens, ends it with SIGTERM (the JVM writes the archive of every
// class it loaded from the class path as it exits) and moves the archive into place. Under the
// build lock: one writer per jar.
func trainArchive(ctx context.Context, sup *childproc.Supervisor, alloc *ports.Allocator, spec ClusterSpec, java, app, archive string) error {
	unlock, err := jvm.LockArchive(app)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(archive); err == nil {
		return nil // written by another process while we waited
	}
	spec.Logf("eureka: writing the CDS archive of the server for this Java runtime (once per built jar): %s", archive)
	t0 := time.Now()
	tmp := archive + ".tmp"
	_ = os.Remove(tmp)
	train := spec
	train.Size, train.Label, train.PeerURL, train.ClockControl = 1, spec.Label+"cds", nil, false
	train.JVMOptions = append(append([]string(nil), spec.JVMOptions...), "-XX:ArchiveClassesAtExit="+tmp)
	servers, err := allocate(alloc, train)
	if err != nil {
		return fmt.Errorf("writing the CDS archive: %w", err)
	}
	props, err := spec.Props.ServerArgs()
	if err != nil {
		return fmt.Errorf("writing the CDS archive: %w", err)
	}
	if err := launch(sup, train, java, app, props, servers, 0); err != nil {
		return fmt.Errorf("writing the CDS archive: %w", err)
	}
	s := servers[0]
	launched := time.Now()
	if err := s.waitOpen(ctx, launched, launched.Add(spec.ReadyTimeout)); err != nil {
		s.Kill()
		return fmt.Errorf("writing the CDS archive: %w", err)
	}
	if err := jvm.EndForArchive(s.child, 2*time.Minute, s.LogPath); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing the CDS archive: %w", err)
	}
	if err := os.Rename(tmp, archive); err != nil {
		return fmt.Errorf("writing the CDS archive: %w", err)
	}
	spec.Logf("eureka: wrote the CDS archive in %.1f s", time.Since(t0).Seconds())
	return nil
}
