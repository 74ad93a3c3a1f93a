// Package archtest holds no code: its test checks the house rules of the
// project's layout with `go list` (who may import whom, that the rooms of
// the scenarios stay apart, that no recorder depends on the judge side,
// and that no package outgrows a quarter of the
// code).
package archtest
