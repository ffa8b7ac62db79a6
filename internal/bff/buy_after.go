package bff

import "github.com/labstack/echo/v4"

// sessBuyDone is the payment record of the purchase this visit just paid and had confirmed.
const sessBuyDone = "buy.done"

// boughtAlready answers a step of a purchase that was paid and confirmed in this visit (Back
// after paying, an old tab): the purchase is over and its confirmation is one click away;
// nothing claims that nothing was charged. nil when this visit has no such purchase.
func (s *Server) boughtAlready(c echo.Context) error {
	ref := s.sessions.GetString(c.Request().Context(), sessBuyDone)
	if ref == "" {
		return nil
	}
	return &Error{Code: EGone, Heading: "You have bought these tickets",
		Message: "Your payment went through and your booking is confirmed, so this step is over. Your confirmation shows the booking number and the tickets.",
		BackURL: s.url(RouteBuyReturn, ref), BackLabel: "See your booking confirmation"}
}
