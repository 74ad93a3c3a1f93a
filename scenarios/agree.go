package scenarios

import "sdchaos/report"

// AgreeDeadline sets the agreement of a time to fail at a probe's deadline
// with article 47.3's figures (2002–2003 ms at a 2 s deadline): ± 5 ms.
func AgreeDeadline(e report.Expect) report.Expect {
	return e.Within(5, "the article's deadline failures read 2002–2003 ms: its client's overhead past the 2 s deadline varies by ms; ± 5 ms")
}

// AgreeLocalRead sets the agreement of a local (serializable) read's
// latency with article 47.3's 1 ms, printed in whole milliseconds.
func AgreeLocalRead(e report.Expect) report.Expect {
	return e.Within(0.5, "the article prints whole milliseconds: 1 ms is any latency that rounds to it").
		Spread("a local read's latency is the host's (loopback, scheduling, a private network namespace's filters); the band allows any local read ≤ 50 ms")
}
