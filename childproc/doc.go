// Package childproc runs parts of an experiment (etcd nodes, model servers)
// as real child processes of the harness, by re-executing the harness binary
// with a hidden sub-command, and guarantees that none outlives the harness.
//
// Three layers make sure of that:
//   - Supervisor.Close kills every child (SIGKILL also ends a SIGSTOPped one)
//     and removes the run's temp dirs; the command calls it on normal end,
//     error, Ctrl-C, SIGTERM and panic.
//   - Each child has the Linux parent-death signal set to SIGKILL, and a
//     watchdog goroutine that exits when the pipe from the harness closes.
//   - A small reaper process (the same binary, sub-command "__reaper") is
//     told every child pid and temp dir; if the harness dies without saying
//     goodbye (SIGKILL), the reaper sees its stdin close, kills the children
//     it was told about and removes the temp dirs.
//
// Under `go test` the running binary is the test binary, so a package whose
// tests start children calls Dispatch first thing in TestMain.
package childproc
