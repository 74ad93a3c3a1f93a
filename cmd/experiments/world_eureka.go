package main

import _ "sdchaos/worlds/eureka"
