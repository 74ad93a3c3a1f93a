package main

import _ "sdchaos/scenarios/article40"
