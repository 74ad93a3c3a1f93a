// Package experiment is an experiment as data: the registry it runs on,
// its instances, its callers (policy callers, the world's real clients, a
// user's program), a timeline of typed fault and probe steps, and the
// checks chosen from the world's rules. A value prints as YAML or JSON, is
// stored with the run (so recheck can judge it again) and loads from a
// file a user writes; a bad file is refused with one line naming the
// field. What each fault means on each registry is the world's business
// (package rig and the world packages); this package only says what was
// asked.
package experiment
