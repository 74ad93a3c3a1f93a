package main

import _ "sdchaos/scenarios/nacosarticle"
