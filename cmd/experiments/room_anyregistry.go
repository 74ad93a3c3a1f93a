package main

import _ "sdchaos/scenarios/anyregistry"
