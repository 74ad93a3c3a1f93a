package ports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// tcpListen is the state column's value for a listening socket in
// /proc/net/tcp (include/net/tcp_states.h: TCP_LISTEN = 10).
const tcpListen = "0A"

// Listening returns the ports of [from, to) a socket listens on in this
// network namespace, read from /proc/net/tcp and /proc/net/tcp6. Unlike a
// failed bind it ignores a connection's local port: after a process is
// killed mid-blackhole its orphaned client sockets hold ephemeral ports in
// FIN_WAIT for minutes, owned by no process and listening on nothing.
func Listening(from, to int) ([]int, error) {
	seen := map[int]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if os.IsNotExist(err) && table == "/proc/net/tcp6" {
			continue // IPv6 disabled
		}
		if err != nil {
			return nil, fmt.Errorf("listening ports: %w", err)
		}
		found, err := parseListening(f, from, to)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("listening ports: %s: %w", table, err)
		}
		for _, p := range found {
			seen[p] = true
		}
	}
	out := make([]int, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Ints(out)
	return out, nil
}

// parseListening reads one /proc/net/tcp table: a header line, then per
// socket "sl local_address rem_address st ..." with addresses as
// HEXIP:HEXPORT.
func parseListening(r io.Reader, from, to int) ([]int, error) {
	var out []int
	sc := bufio.NewScanner(r)
	for first := true; sc.Scan(); first = false {
		fields := strings.Fields(sc.Text())
		if first || len(fields) < 4 || fields[3] != tcpListen {
			continue
		}
		colon := strings.LastIndexByte(fields[1], ':')
		if colon < 0 {
			return nil, fmt.Errorf("local address %q has no port", fields[1])
		}
		p, err := strconv.ParseUint(fields[1][colon+1:], 16, 16)
		if err != nil {
			return nil, fmt.Errorf("local address %q: %w", fields[1], err)
		}
		if int(p) >= from && int(p) < to {
			out = append(out, int(p))
		}
	}
	return out, sc.Err()
}
