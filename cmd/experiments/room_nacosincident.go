package main

import _ "sdchaos/scenarios/nacosincident"
