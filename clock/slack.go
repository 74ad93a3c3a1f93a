package clock

import "time"

// SchedSlack is the allowance for one timer or goroutine wake-up coming
// late on a shared host (scheduling delay): a band derived from configured
// intervals and timers adds it once for every wake-up its measurement waits
// on. It is a stated size, not a rule of any system under test; the judges
// use it as rig.SchedSlack and the tests' timing bands use it directly.
const SchedSlack = 50 * time.Millisecond
