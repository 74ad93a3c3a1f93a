// Package report is the judge side of a run: from a recorded history
// (package history) it builds per-second tables, metrics, checks with their
// verdicts, the gates that make a run invalid, statistics over repeated
// runs, and renders them as a terminal table, markdown, JSON, CSV or JUnit.
// Everything here is a pure function of its inputs, so it is tested without
// any registry running.
package report
