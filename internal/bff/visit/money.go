package visit

import (
	"context"

	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/labstack/echo/v4"
)

// BlockingEntry returns the edit's ledger entry that has money in motion: a payment or
// refund that has started and not ended, or a refund paid out that the booking never took
// (staff must look at it). While there is one the edit can no longer be changed, cancelled or
// completed again here; the entry's status page says where it stands. nil when there is none.
func (v *Visits) BlockingEntry(ctx context.Context, e Edit) (*ledger.Entry, error) {
	entries, err := v.ledger.ForEdit(ctx, e.UserSessionID)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		en := entries[i]
		if !en.State.Terminal(en.Kind) || (en.Kind == ledger.KindRefund && en.RefundID != "" && en.State != ledger.StateApplied) {
			return &en, nil
		}
	}
	return nil, nil
}

// BuyPaymentUnderWay returns the order's starting or awaiting payment record, if any.
func (v *Visits) BuyPaymentUnderWay(c echo.Context, buy Buy) (purchases.Record, bool) {
	rec, err := v.purchases.Active(c.Request().Context(), buy.UserSessionID)
	return rec, err == nil
}
