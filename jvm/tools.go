package jvm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNoJava is returned (wrapped) when no java executable is found.
var ErrNoJava = errors.New("java not found")

// ErrNoMaven is returned (wrapped) when no mvn executable is found.
var ErrNoMaven = errors.New("mvn not found")

// ErrBuild is returned (wrapped) when the Maven build of a piece fails.
var ErrBuild = errors.New("maven build failed")

// Java returns the java executable: $JAVA_HOME/bin/java when JAVA_HOME is
// set, else java on PATH.
func Java() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		return "", fmt.Errorf("%w: JAVA_HOME=%s has no bin/java; install OpenJDK 17 or later (Debian: apt-get install openjdk-17-jdk-headless)", ErrNoJava, home)
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("%w on PATH; the real Eureka and Nacos runs need OpenJDK 17 or later (Debian: apt-get install openjdk-17-jdk-headless)", ErrNoJava)
	}
	return p, nil
}

// Maven returns the mvn executable on PATH.
func Maven() (string, error) {
	p, err := exec.LookPath("mvn")
	if err != nil {
		return "", fmt.Errorf("%w on PATH; the real Eureka and Nacos runs build their JVM side with Maven 3.8 or later (Debian: apt-get install maven)", ErrNoMaven)
	}
	return p, nil
}

// Missing reports whether err says a JVM tool is missing or a build failed
// (tests skip on it when the machine has no JVM; the command exits 4).
func Missing(err error) bool {
	return errors.Is(err, ErrNoJava) || errors.Is(err, ErrNoMaven)
}

// ChildOptions are the options every JVM child of a run gets: its temp
// files (Tomcat's work and docbase dirs, Spring's) in tmp, a dir of the run
// that the supervisor removes (the reaper too, after a SIGKILL of the
// harness), and no hsperfdata file in /tmp (-XX:-UsePerfData), which a
// killed JVM would leave behind. tmp is created.
func ChildOptions(tmp string) ([]string, error) {
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("creating the JVM's temp dir: %w", err)
	}
	return []string{"-Djava.io.tmpdir=" + tmp, "-XX:-UsePerfData"}, nil
}
