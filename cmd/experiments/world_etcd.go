package main

import _ "sdchaos/worlds/etcd"
