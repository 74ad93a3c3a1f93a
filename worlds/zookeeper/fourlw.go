package zookeeper

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// ErrUnreachable is returned (wrapped) when a member does not answer a
// four-letter word: refused (killed), or no answer within the deadline
// (paused, or its network cut).
var ErrUnreachable = errors.New("member unreachable")

// notServing is what every four-letter word answers while the member's
// ZooKeeperServer is not running (LOOKING, or shutting down):
// AbstractFourLetterCommand.ZK_NOT_SERVING.
const notServing = "This ZooKeeper instance is not currently serving requests"

// FourLetterTimeout bounds one four-letter-word exchange.
const FourLetterTimeout = 2 * time.Second

// fourLetter sends cmd to addr and returns the whole answer (the server closes
// the connection after it).
func fourLetter(ctx context.Context, addr, cmd string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, FourLetterTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("%s on %s: %w: %v", cmd, addr, ErrUnreachable, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", fmt.Errorf("%s on %s: %w: %v", cmd, addr, ErrUnreachable, err)
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		return "", fmt.Errorf("%s on %s: %w: %v", cmd, addr, ErrUnreachable, err)
	}
	if len(b) == 0 {
		return "", fmt.Errorf("%s on %s: %w: empty answer (is %s in 4lw.commands.whitelist?)", cmd, addr, ErrUnreachable, cmd)
	}
	return string(b), nil
}

// Srvr is a member's answer to srvr (StatCommand without the client list).
type Srvr struct {
	// Serving is false when the member answered that it is not serving
	// requests; the other fields are then zero.
	Serving bool
	// Version is the "Zookeeper version:" line.
	Version string
	// Mode is the member's role.
	Mode Mode
	// Zxid is the last processed transaction id (epoch in the high 32 bits).
	Zxid int64
	// Outstanding is the number of queued requests; Connections the open
	// client connections; Nodes the znode count.
	Outstanding, Connections, Nodes int64
	// LatencyMin, LatencyAvg, LatencyMax are the request latencies in ms.
	LatencyMin, LatencyAvg, LatencyMax float64
}

// ParseSrvr decodes a srvr answer.
func ParseSrvr(text string) (Srvr, error) {
	var s Srvr
	if strings.HasPrefix(strings.TrimSpace(text), notServing) {
		return s, nil
	}
	s.Serving = true
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		if err := s.set(strings.TrimSpace(k), strings.TrimSpace(v)); err != nil {
			return Srvr{}, fmt.Errorf("srvr line %q: %w", sc.Text(), err)
		}
	}
	if s.Mode == "" {
		return Srvr{}, fmt.Errorf("srvr answer has no Mode line: %q", text)
	}
	return s, nil
}

func (s *Srvr) set(k, v string) error {
	var err error
	switch k {
	case "Zookeeper version":
		s.Version = v
	case "Mode":
		s.Mode, err = parseMode(v)
	case "Zxid":
		s.Zxid, err = strconv.ParseInt(strings.TrimPrefix(v, "0x"), 16, 64)
	case "Outstanding":
		s.Outstanding, err = strconv.ParseInt(v, 10, 64)
	case "Connections":
		s.Connections, err = strconv.ParseInt(v, 10, 64)
	case "Node count":
		s.Nodes, err = strconv.ParseInt(v, 10, 64)
	case "Latency min/avg/max":
		err = s.setLatency(v)
	}
	return err
}

func (s *Srvr) setLatency(v string) error {
	parts := strings.Split(v, "/")
	if len(parts) != 3 {
		return fmt.Errorf("want min/avg/max, got %q", v)
	}
	var f [3]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return err
		}
		f[i] = x
	}
	s.LatencyMin, s.LatencyAvg, s.LatencyMax = f[0], f[1], f[2]
	return nil
}

// ParseMntr decodes a mntr answer into its key → value pairs (tab-separated
// lines); a not-serving answer gives an empty map.
func ParseMntr(text string) (map[string]string, error) {
	out := map[string]string{}
	if strings.HasPrefix(strings.TrimSpace(text), notServing) {
		return out, nil
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if sc.Text() == "" {
			continue
		}
		k, v, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			return nil, fmt.Errorf("mntr line %q: no tab", sc.Text())
		}
		out[k] = v
	}
	return out, nil
}
