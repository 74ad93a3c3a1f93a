// Package externaltest runs the experiments command, built once, against
// etcd clusters it did not start (etcd's own binary as plain processes, on
// loopback or in network namespaces) and the sharded storm: the tests of
// the external mode, kept apart from the package main's tests so that each
// package stays within go test's per-package time limit.
package externaltest

import (
	"os"
	"testing"

	"sdchaos/internal/cmdrun"
)

func TestMain(m *testing.M) {
	if eps := os.Getenv(envLeftovers); eps != "" {
		os.Exit(printLeftovers(eps))
	}
	cmdrun.Main(m)
}
