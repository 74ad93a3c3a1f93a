// Package nacosincident is the room of the Nacos article on the real Nacos
// world (package nacosreal: a Nacos 3.1 server and real Spring, Java and Go
// Nacos clients): nacos-incident, the incident itself (18 s of loss to
// every client link, or every instance deregistered while alive, or
// callers restarted during the loss), and nacos-storm (N instances
// re-registering when their links return, at once or jittered). Each is a
// plan run through the one run path (rig.Run with a nacos.World: its
// faults are fault values on the timeline) and a judge that reads the
// recorded history's typed fields. The same article on the etcd world is
// the room nacosarticle.
package nacosincident
