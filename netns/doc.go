// Package netns gives a run a private network: it re-executes the harness
// inside a fresh user + network namespace that the harness creates itself
// (clone flags on the re-executed child, uid/gid mapped to the caller; no
// sudo, no external command), brings the namespace's loopback up, makes a
// range of member addresses local (MemberNet), and installs packet-level
// faults there with nf_tables (github.com/google/nftables, no shelling out).
//
// Nothing the run does reaches the host's network: the namespace has only
// its own loopback, and it belongs to the child process, so it is gone when
// the child and its children end (also after SIGKILL of the harness: the
// child has the parent-death signal set, and its own children have theirs).
//
// The flow:
//   - the command calls Supported (once) and then Reexec with its own
//     arguments; Reexec waits, forwards SIGINT/SIGTERM/SIGHUP and returns the
//     child's exit code;
//   - the child starts as the hidden sub-command "__netns-enter" (dispatched
//     by childproc.Dispatch, first thing in main or TestMain), sets the
//     network up and executes the same binary again with the original
//     arguments, now inside the namespace, where Inside reports true;
//   - inside, OpenFilter gives the run one nf_tables table; each fault is one
//     base chain in it (Filter.Apply), removed at heal (Applied.Remove), and
//     the table is deleted by Filter.Close at the end.
package netns
