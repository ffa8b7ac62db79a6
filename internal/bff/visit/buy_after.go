package visit

import (
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// SessBuyDone is the payment record of the purchase this visit just paid and had confirmed.
const SessBuyDone = "buy.done"

// BoughtAlready answers a step of a purchase that was paid and confirmed in this visit (Back
// after paying, an old tab): the purchase is over and its confirmation is one click away;
// nothing claims that nothing was charged. nil when this visit has no such purchase.
func (v *Visits) BoughtAlready(c echo.Context) error {
	ref := v.kernel.Sessions.GetString(c.Request().Context(), SessBuyDone)
	if ref == "" {
		return nil
	}
	l := web.Loc(c)
	return &web.Error{Code: web.EGone, Heading: l.T("checkout.bought_already"), Message: l.T("checkout.bought_already_text"),
		BackURL: v.kernel.URL("buy.return", ref), BackLabel: l.T("checkout.see_confirmation")}
}
