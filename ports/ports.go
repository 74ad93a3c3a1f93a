// Package ports hands out loopback TCP ports from a base upward, checking
// that each is free. The harness never connects to or kills anything it did
// not start, so a taken port is an error that names it.
package ports

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
)

// ErrInUse is returned (wrapped) when a port the run needs is already taken.
var ErrInUse = errors.New("port already in use")

// Host is the only address the harness listens on.
const Host = "127.0.0.1"

// MaxPort is the highest port handed out.
const MaxPort = 65535

// Allocator hands out consecutive ports from a base; safe for concurrent use.
type Allocator struct {
	mu   sync.Mutex
	next int
	base int
	flag string
}

// New returns an allocator starting at base. flag names the command-line
// flag that moves the range, quoted in errors (e.g. "--port-base").
func New(base int, flag string) *Allocator {
	return &Allocator{next: base, base: base, flag: flag}
}

// Take returns the next port after checking it is free on 127.0.0.1.
// purpose ("etcd n1 client") is quoted in the error if it is taken.
func (a *Allocator) Take(purpose string) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.next > MaxPort {
		return 0, fmt.Errorf("no port left above %d for %s", a.base, purpose)
	}
	p := a.next
	a.next++
	if err := CheckFree(p); err != nil {
		return 0, inUseError(fmt.Sprintf("port %d (%s) on %s is already in use; choose another range with %s",
			p, purpose, Host, a.flag))
	}
	return p, nil
}

// CheckFree reports an error if 127.0.0.1:port cannot be listened on.
func CheckFree(port int) error {
	l, err := net.Listen("tcp", Addr(port))
	if err != nil {
		return err
	}
	return l.Close()
}

// Addr returns "127.0.0.1:<port>".
func Addr(port int) string { return net.JoinHostPort(Host, strconv.Itoa(port)) }

// inUseError carries a full message and matches ErrInUse with errors.Is.
type inUseError string

func (e inUseError) Error() string        { return string(e) }
func (e inUseError) Is(target error) bool { return target == ErrInUse }
