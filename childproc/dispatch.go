package childproc

import (
	"os"
	"strings"
	"sync"
)

// Main is a hidden sub-command's entry point; it returns the exit code.
type Main func(args []string) int

var (
	cmdMu    sync.Mutex
	commands = map[string]Main{}
)

// Register adds a hidden sub-command. Names start with "__" so they never
// clash with scenario names; it panics on a bad or duplicate name.
func Register(name string, fn Main) {
	if !strings.HasPrefix(name, "__") {
		panic("childproc: hidden command name must start with __: " + name)
	}
	cmdMu.Lock()
	defer cmdMu.Unlock()
	if _, dup := commands[name]; dup {
		panic("childproc: duplicate hidden command " + name)
	}
	commands[name] = fn
}

func lookup() (Main, bool) {
	if len(os.Args) < 2 {
		return nil, false
	}
	cmdMu.Lock()
	defer cmdMu.Unlock()
	fn, ok := commands[os.Args[1]]
	return fn, ok
}

// Dispatch runs the hidden sub-command named by os.Args[1], if any, and
// exits with its code; otherwise it returns. Call it first in main and in
// TestMain of packages whose tests start children.
func Dispatch() {
	fn, ok := lookup()
	if !ok {
		return
	}
	if os.Args[1] != reaperCmd { // the reaper's work starts when the harness dies
		startWatchdog()
	}
	code := fn(os.Args[2:])
	os.Exit(code)
}
