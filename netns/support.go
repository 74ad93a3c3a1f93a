package netns

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// ErrUnsupported is wrapped by the errors of Supported and Reexec when this
// machine does not let the harness make a private network namespace (user
// namespaces disallowed, or nf_tables refused inside one). The command
// reports it as a set-up error (exit 2); the default network mode still
// works.
var ErrUnsupported = errors.New("private network namespaces unsupported")

var (
	supportOnce sync.Once
	supportErr  error
)

// Supported reports whether a private network namespace can be made and
// used here: it starts the current executable in one (the hidden
// sub-command "__netns-probe", through the same set-up as a run), which
// brings lo up, makes MemberNet local and installs and removes a
// random-drop and a TCP-reset rule. The result is cached. A non-nil error
// wraps ErrUnsupported and is one line saying what was refused and how to
// allow it.
func Supported() error {
	supportOnce.Do(func() { supportErr = probe() })
	return supportErr
}

func probe() error {
	var stderr bytes.Buffer
	code, err := Cmd{Args: []string{probeCommand}, Env: os.Environ(),
		Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr}.Run()
	if err != nil {
		return err
	}
	if code != 0 {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return fmt.Errorf("%w: inside a new namespace: %s%s", ErrUnsupported, msg, hint(code))
	}
	return nil
}

// refused wraps the error of a child the kernel would not start in a new
// namespace, with the sysctls that allow it.
func refused(err error) error {
	return fmt.Errorf("%w: the kernel refused a new user + network namespace (%v; %s); allow it with "+
		"'sysctl -w user.max_user_namespaces=15000' (Debian/older Ubuntu also "+
		"'sysctl -w kernel.unprivileged_userns_clone=1'; Ubuntu 23.10+ "+
		"'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'), or run without --net private",
		ErrUnsupported, err, sysctls())
}

// hint says what to change, from the exit code of the probe.
func hint(code int) string {
	switch code {
	case exitSetup:
		return "; the namespace's network could not be set up (no capabilities in it? on Ubuntu 23.10+ " +
			"try 'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'), or run without --net private"
	case exitNoFilter:
		return "; the kernel must offer nf_tables with the numgen and reject expressions " +
			"(CONFIG_NF_TABLES, CONFIG_NFT_NUMGEN, CONFIG_NFT_REJECT), or run without --net private"
	}
	return fmt.Sprintf(" (exit %d)", code)
}

// sysctls returns the values of the sysctls that govern user namespaces.
func sysctls() string {
	var parts []string
	for _, name := range []string{"user/max_user_namespaces", "kernel/unprivileged_userns_clone",
		"kernel/apparmor_restrict_unprivileged_userns"} {
		if b, err := os.ReadFile("/proc/sys/" + name); err == nil {
			parts = append(parts, strings.ReplaceAll(name, "/", ".")+" = "+strings.TrimSpace(string(b)))
		}
	}
	if len(parts) == 0 {
		return "no user-namespace sysctl readable"
	}
	return strings.Join(parts, ", ")
}
