package visit

import (
	"context"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/seatplans"
)

// OrderAndPlan reads an order and the seat plan of its session at once: they are independent,
// so a seat map page waits for one round of the ticketing system, not two, when the plan is
// not kept. Each error is returned for the caller to word (the order's ends the flow, the
// plan's is an outage). When the order cannot be read the page does not wait for the plan
// (a shared read of it carries on for others: seatplans).
func (v *Visits) OrderAndPlan(ctx context.Context, userSessionID, cinemaID, sessionID string) (o cinema.Order, snap seatplans.Snapshot, orderErr, planErr error) {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		snap, planErr = v.seatPlans.Plan(pctx, cinemaID, sessionID)
	}()
	o, orderErr = v.kernel.Ticketing.GetOrder(ctx, userSessionID)
	if orderErr != nil {
		cancel()
	}
	<-done
	return o, snap, orderErr, planErr
}
