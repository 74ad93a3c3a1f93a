package main

// The worlds register themselves (their --registry name, their rules) when
// imported: one line a world.
import _ "sdchaos/worlds/dns"
