package etcdexternal

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
