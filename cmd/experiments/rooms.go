package main

// The scenario rooms register their scenarios when imported.
import (
	_ "sdchaos/scenarios/article47"
)
