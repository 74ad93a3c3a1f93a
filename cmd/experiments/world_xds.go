package main

import _ "sdchaos/worlds/xds"
