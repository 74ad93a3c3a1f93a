package main

import _ "sdchaos/scenarios/eurekaarticle"
