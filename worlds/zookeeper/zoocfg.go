package zookeeper

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"sdchaos/ports"
)

// FourLetterWords are the commands every member's zoo.cfg enables
// (4lw.commands.whitelist): the harness reads srvr and mntr; ruok and conf help
// a person looking at a kept run.
var FourLetterWords = []string{"srvr", "stat", "mntr", "ruok", "conf"}

// ServerPorts are one member's ports, all on 127.0.0.1.
type ServerPorts struct {
	// ID is the member's myid (1…Size).
	ID int
	// Client is clientPort; Quorum the port followers connect to the leader
	// on; Election the leader-election port.
	Client, Quorum, Election int
}

// RenderZooCfg returns member self's zoo.cfg: the timing of c, its data dir,
// its client port on 127.0.0.1, the admin server off, the four-letter words
// enabled, and a server.N line per member.
func RenderZooCfg(c Config, dataDir string, self ServerPorts, all []ServerPorts) string {
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "%s=%s\n", k, v) }
	fmt.Fprintf(&b, "# zoo.cfg of member %d, written by sdchaos (package zookeeper)\n", self.ID)
	line("tickTime", ms(c.TickTime))
	line("initLimit", strconv.Itoa(c.InitLimit))
	line("syncLimit", strconv.Itoa(c.SyncLimit))
	if c.MinSessionTimeout > 0 {
		line("minSessionTimeout", ms(c.MinSessionTimeout))
	}
	if c.MaxSessionTimeout > 0 {
		line("maxSessionTimeout", ms(c.MaxSessionTimeout))
	}
	line("dataDir", dataDir)
	line("clientPort", strconv.Itoa(self.Client))
	line("clientPortAddress", ports.Host)
	line("admin.enableServer", "false")
	line("4lw.commands.whitelist", strings.Join(FourLetterWords, ","))
	// A one-member ensemble stays a quorum peer (leader of itself) instead of
	// falling back to the standalone server.
	line("standaloneEnabled", "false")
	line("quorumListenOnAllIPs", "false")
	for _, p := range all {
		line("server."+strconv.Itoa(p.ID), fmt.Sprintf("%s:%d:%d", ports.Host, p.Quorum, p.Election))
	}
	return b.String()
}

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
