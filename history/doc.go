// Package history is the record side of a run: the operations callers,
// probes and rigs append (with a typed kind, the node they went through and
// three outcomes: ok, fail, unknown), the typed fault and probe events, the
// Recorder that collects both against one time zero, the saved-history
// format (gzipped JSON lines) and the run's metadata.
//
// It imports nothing of the judge side: checks, verdicts, gates and
// renderers live in report/, which reads a History. Recorders (caller/,
// fault/, rig/, storm/, the cluster probes) import this package only, so
// "record first, judge later" holds in the imports (archtest enforces it).
package history
