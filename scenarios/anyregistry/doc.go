// Package anyregistry is the room of the registry-neutral experiments:
// experiments written as data (package experiment) that mean the same on
// every registry — the registry unreachable while every instance lives,
// an instance dying meanwhile, a member cut off or a majority lost, the
// instances coming back at once — run on whichever world --registry
// names, and judged by that world's own rules (rig.Registry.Rules). The
// built-in ones are the YAML files in builtin/; `experiments run FILE`
// runs a user's.
package anyregistry
