package zookeeper

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Mode is a member's role as its srvr answer gives it, or what the harness
// saw when it did not answer.
type Mode string

// The modes.
const (
	ModeLeader     Mode = "leader"
	ModeFollower   Mode = "follower"
	ModeObserver   Mode = "observer"
	ModeStandalone Mode = "standalone"
	ModeReadOnly   Mode = "read-only"
	// ModeNotServing: the member answered that it serves no requests
	// (LOOKING: electing, or cut off from its leader).
	ModeNotServing Mode = "not-serving"
	// ModeUnreachable: no answer (killed, paused, or cut off from the harness).
	ModeUnreachable Mode = "unreachable"
)

func parseMode(v string) (Mode, error) {
	switch m := Mode(v); m {
	case ModeLeader, ModeFollower, ModeObserver, ModeStandalone, ModeReadOnly:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q", v)
}

// Serving reports whether a member in mode m answers client requests.
func (m Mode) Serving() bool {
	return m == ModeLeader || m == ModeFollower || m == ModeObserver || m == ModeStandalone || m == ModeReadOnly
}

// State is one member's state at one instant, read from its srvr and mntr
// answers.
type State struct {
	// Member is the member's name; At when the srvr answer came.
	Member string
	At     time.Time
	// Mode is the member's role (ModeUnreachable when srvr got no answer).
	Mode Mode
	// Srvr is the srvr answer (zero unless the member serves).
	Srvr
	// Sessions is zk_global_sessions, Ephemerals zk_ephemerals_count,
	// SyncedFollowers zk_synced_followers (the leader only; -1 elsewhere).
	Sessions, Ephemerals, SyncedFollowers int64
}

// Epoch returns the leader epoch of the last zxid (its high 32 bits).
func (s State) Epoch() int64 { return s.Zxid >> 32 }

// readState asks addr for srvr and, if it serves, mntr. An unreachable member
// is a State with ModeUnreachable and the error.
func readState(ctx context.Context, name, addr string) (State, error) {
	st := State{Member: name, Mode: ModeUnreachable, SyncedFollowers: -1}
	text, err := fourLetter(ctx, addr, "srvr")
	st.At = time.Now()
	if err != nil {
		return st, err
	}
	if st.Srvr, err = ParseSrvr(text); err != nil {
		return st, fmt.Errorf("member %s: %w", name, err)
	}
	if !st.Serving {
		st.Mode = ModeNotServing
		return st, nil
	}
	st.Mode = st.Srvr.Mode
	text, err = fourLetter(ctx, addr, "mntr")
	if err != nil {
		return st, err
	}
	kv, err := ParseMntr(text)
	if err != nil {
		return st, fmt.Errorf("member %s: %w", name, err)
	}
	return st, st.setMntr(kv)
}

// setMntr copies the mntr values State keeps.
func (st *State) setMntr(kv map[string]string) error {
	for key, dst := range map[string]*int64{"zk_global_sessions": &st.Sessions,
		"zk_ephemerals_count": &st.Ephemerals, "zk_synced_followers": &st.SyncedFollowers} {
		v, ok := kv[key]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("member %s: mntr %s=%q: %w", st.Member, key, v, err)
		}
		*dst = n
	}
	return nil
}

// Quorum reports whether states show a formed quorum: exactly one leader, every
// other member following, and the leader counting every follower as synced
// (when it reports zk_synced_followers).
func Quorum(states []State) bool {
	leaders, followers := 0, 0
	var lead State
	for _, s := range states {
		switch s.Mode {
		case ModeLeader:
			leaders++
			lead = s
		case ModeFollower:
			followers++
		}
	}
	if len(states) == 1 {
		return leaders == 1
	}
	return leaders == 1 && followers == len(states)-1 &&
		(lead.SyncedFollowers < 0 || lead.SyncedFollowers >= int64(followers))
}
