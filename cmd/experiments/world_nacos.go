package main

import _ "sdchaos/worlds/nacos"
