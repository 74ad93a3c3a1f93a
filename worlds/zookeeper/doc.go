// Package zookeeper runs real Apache ZooKeeper as a registry world's
// processes: a three-server ensemble (each member's
// org.apache.zookeeper.server.quorum.QuorumPeerMain its own JVM, the piece
// jvm.ZooKeeperServer built by Maven from org.apache.zookeeper:zookeeper
// 3.9.5), instances that register in Curator's service-discovery layout
// from Go (github.com/go-zookeeper/zk), and real Java discovery clients as
// callers (the piece jvm.ZooKeeperCallers: Curator's ServiceDiscovery and
// ServiceCache, or Spring Cloud Zookeeper discovery with Spring Cloud
// LoadBalancer), all children of the harness under the childproc
// no-orphans rules.
//
// Start builds the server jar on first use (jvm.Build), writes one zoo.cfg
// per member (client, quorum and election ports from a ports.Allocator on
// 127.0.0.1, the admin server off, data dirs in a temp dir of the
// supervisor), starts the members and returns once a quorum has formed: one
// member leads and every other one follows, as read from the members' own
// four-letter words (srvr, mntr; never from their logs). A Member is killed
// (SIGKILL), paused (SIGSTOP), resumed and restarted on its data dir for
// real. Attach targets an ensemble the harness did not start (loopback only
// unless AttachConfig.AllowRemote), and both work under a chroot of the run
// (Ensemble.Chroot) that Close removes, so nothing is left on the ensemble.
//
// Config.ClientLinks puts a proxy in front of every member's client port
// (faults blackhole every client's link there); Config.PeerLinks makes every
// member reach each peer through links of its own (PeerLink: a fault cuts a
// member off from its peers while its clients still reach it), the election
// links rewriting a member's first message so that no peer dials back
// around them (initmsg.go), the quorum links dialing a leader with the
// learner's own tries (dialLearner: the link has accepted the learner's
// connect, so a refused dial must not end it sooner than ZooKeeper would). Client is a Go client of the run (a policy
// caller's, a probe pinned to one member); RegisterOnce registers as a new
// instance does.
//
// rules.go holds ZooKeeper's, Curator's and Spring Cloud Zookeeper's timing
// rules as constants, each cited from the source, and rules_experiment.go
// the bands the registry-neutral experiments' judges take from them (Rules,
// an experiment.Rules); docs/zookeeper.md explains them.
//
// Sentinel errors: jvm.ErrNoJava, jvm.ErrNoMaven, jvm.ErrBuild (wrapped, from
// the build), ErrUnreachable (a member that does not answer its four-letter
// words), ErrNotOurs (a process action on a member the harness did not
// start), ErrRemote (a connect string off the loopback range without the
// opt-in).
package zookeeper
