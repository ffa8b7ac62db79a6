package sandbox

import (
	"time"
)

// Clock tells the sandbox the time. Order expiry and fee rules read it, so a
// test can expire an order by advancing a clock of its own (internal/testclock)
// instead of sleeping.
type Clock interface{ Now() time.Time }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
