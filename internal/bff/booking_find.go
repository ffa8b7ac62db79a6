package bff

import (
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages/booking"
)

// notFoundMessage is the one neutral answer for every wrong detail: it never says which part
// was wrong, so the form cannot be used to learn booking numbers or e-mail addresses.
const notFoundMessage = "We could not find a booking with these details. Please check the booking number and the e-mail address."

// Without the cinemas the form cannot be filled in: that is the ticketing system's failure,
// never the person's, so it comes back as an error to show instead of the form.
func (s *Server) findView(c echo.Context) (booking.FindView, error) {
	v := booking.FindView{ActionURL: s.url(RouteFindBooking), CSRFToken: csrfToken(c), Staff: s.staffMember(c) != ""}
	list, err := s.cinemas(c.Request().Context())
	if err != nil {
		return v, s.fromUpstream(err, s.url(RouteFindBooking), "Try again")
	}
	for _, ci := range list {
		v.Cinemas = append(v.Cinemas, booking.Option{Value: ci.ID, Label: ci.Name})
	}
	return v, nil
}

// showFindBooking shows the look-up form.
func (s *Server) showFindBooking(c echo.Context) error {
	v, err := s.findView(c)
	if err != nil {
		return err
	}
	if msg := s.popFlash(c); msg != "" {
		v.Error = msg
	}
	return s.render(c, http.StatusOK, "Find your booking", booking.Find(v))
}

// findBooking checks the booking number and e-mail against the upstream and binds the visit
// to the booking. Attempts are limited per client IP and per booking number.
func (s *Server) findBooking(c echo.Context) error {
	v, err := s.findView(c)
	if err != nil {
		return err
	}
	v.CinemaID = strings.TrimSpace(c.FormValue("cinema"))
	v.Number = strings.TrimSpace(c.FormValue("number"))
	v.Email = strings.TrimSpace(c.FormValue("email"))

	ipKey := "ip:" + c.RealIP()
	number, err := strconv.ParseInt(v.Number, 10, 64)
	addr, mailErr := mail.ParseAddress(v.Email)
	if addr == nil {
		addr = &mail.Address{}
	}
	if v.Staff {
		mailErr = nil // staff look up by number alone
	}
	if err != nil || number <= 0 || mailErr != nil || v.CinemaID == "" {
		if ok, wait := s.findByIP.Allow(ipKey); !ok {
			return s.tooMany(c, v, wait.Seconds())
		}
		v.Error = "Please enter the booking number (digits only) and the e-mail address you booked with."
		return s.render(c, http.StatusUnprocessableEntity, "Find your booking", booking.Find(v))
	}
	// Both limits at once: a refused attempt uses up neither, and the wait named is the one
	// after which the look-up is allowed (the booking's, once that number is blocked), so it
	// only counts down.
	if ok, wait := ratelimit.AllowAll(ratelimit.Check{Limiter: s.findByIP, Key: ipKey},
		ratelimit.Check{Limiter: s.findByBooking, Key: fmt.Sprintf("booking:%s:%d", v.CinemaID, number)}); !ok {
		return s.tooMany(c, v, wait.Seconds())
	}
	b, err := s.readBooking(c.Request().Context(), v.CinemaID, number)
	switch {
	case errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrInvalidRequest):
		v.Error = notFoundMessage
		return s.render(c, http.StatusNotFound, "Find your booking", booking.Find(v))
	case err != nil:
		return s.fromUpstream(err, s.url(RouteFindBooking), "Try again")
	}
	if !v.Staff && !strings.EqualFold(strings.TrimSpace(b.CustomerEmail), addr.Address) {
		v.Error = notFoundMessage
		return s.render(c, http.StatusNotFound, "Find your booking", booking.Find(v))
	}
	if err := s.bindBooking(c, boundBooking{CinemaID: v.CinemaID, Number: number}); err != nil {
		return err
	}
	return s.redirect(c, s.url(RouteBooking))
}

func (s *Server) tooMany(c echo.Context, v booking.FindView, seconds float64) error {
	c.Response().Header().Set("Retry-After", strconv.Itoa(wholeSeconds(seconds)))
	v.Error = "Too many attempts. Please try again in " + secondsText(seconds) + "."
	return s.render(c, http.StatusTooManyRequests, "Find your booking", booking.Find(v))
}

// wholeSeconds rounds a wait up to whole seconds (at least one).
func wholeSeconds(seconds float64) int {
	n := int(seconds + 0.999)
	if n < 1 {
		n = 1
	}
	return n
}

// secondsText is a wait in words: "1 second", "12 seconds".
func secondsText(seconds float64) string {
	n := wholeSeconds(seconds)
	if n == 1 {
		return "1 second"
	}
	return fmt.Sprintf("%d seconds", n)
}

// forgetBooking unbinds the booking from this visit (a shared computer, the kiosk).
func (s *Server) forgetBooking(c echo.Context) error {
	ctx := c.Request().Context()
	s.sessions.Remove(ctx, sessBookingCinema)
	s.sessions.Remove(ctx, sessBookingNumber)
	s.clearEdit(c)
	if err := s.renewSession(c); err != nil {
		return err
	}
	return s.redirect(c, s.url(RouteHome))
}
