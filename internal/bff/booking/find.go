package booking

import (
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/keypad"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/bookingview"
)

// Without the cinemas the form cannot be filled in: that is the ticketing system's failure,
// never the person's, so it comes back as an error to show instead of the form.
func (h *Handler) findView(c echo.Context) (bookingview.FindView, error) {
	v := bookingview.FindView{ActionURL: h.Site.URL("booking.find"), CSRFToken: web.CSRFToken(c), Staff: h.Site.StaffMember(c) != ""}
	list, err := h.Visits.Cinemas(c.Request().Context())
	if err != nil {
		return v, h.Visits.FromUpstream(err, h.Site.URL("booking.find"), web.Loc(c).T("booking.try_again"))
	}
	for _, ci := range list {
		v.Cinemas = append(v.Cinemas, bookingview.Option{Value: ci.ID, Label: ci.Name})
	}
	if web.IsKiosk(c) {
		// A kiosk stands in one cinema, set when it was enrolled (the first one for a kiosk
		// enrolled before kiosks had one).
		v.Kiosk, v.CinemaID = true, web.DeviceOf(c).CinemaID
		if v.CinemaID == "" && len(list) > 0 {
			v.CinemaID = list[0].ID
		}
	}
	return v, nil
}

// findTitle is the look-up's page title: staff find a booking, a customer theirs.
func (h *Handler) findTitle(c echo.Context) string {
	if h.Site.StaffUser(c) != "" {
		return web.Loc(c).T("booking.find_title_staff")
	}
	return web.Loc(c).T("booking.find_title")
}

// showFindBooking shows the look-up form.
func (h *Handler) showFindBooking(c echo.Context) error {
	v, err := h.findView(c)
	if err != nil {
		return err
	}
	if msg := h.Site.PopFlash(c); msg != "" {
		v.Error = msg
	}
	if msg := h.Site.PopFlashSuccess(c); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeSuccess, Heading: msg}
	}
	if msg := h.Sessions.PopString(c.Request().Context(), web.SessStaffPINWarning); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeWarning, Heading: msg}
	}
	return h.Site.Render(c, http.StatusOK, h.findTitle(c), bookingview.Find(v))
}

// findBooking checks the booking number and e-mail against the upstream and binds the visit
// to the view. Signed-in staff need the number alone, or scan a ticket's QR code into the
// same field. Failed attempts are limited per client and per booking number and client
// (limits.go): a booking number is never locked for everybody, and a failure the upstream
// caused (an outage) does not count.
func (h *Handler) findBooking(c echo.Context) error {
	v, err := h.readFindForm(c)
	if err != nil {
		return err
	}
	if key := c.FormValue("key"); key != "" && v.Kiosk {
		// A key of an on-screen keypad: the form comes back with it typed, nothing is looked up.
		v.Number, v.Email = keypad.ApplyKey(v.Number, v.Email, key)
		return h.Site.Render(c, http.StatusOK, h.findTitle(c), bookingview.Find(v))
	}
	client := h.findClient(c, v)
	code, refusal := h.lookUpCode(c, &v)
	if refusal != "" {
		return h.findRefused(c, v, refusal, client)
	}
	if dev := web.DeviceOf(c); v.CinemaID != "" && !dev.Serves(v.CinemaID) {
		return h.refuseOtherCinema(c, v, code != nil)
	}
	number, email, ok := findDetails(v, code != nil)
	if !ok {
		return h.findRefused(c, v, findIncomplete(web.Loc(c), v.Staff), client)
	}
	// Both limits at once: a refused attempt uses up neither, and the wait named is the one
	// after which this person's look-up is allowed, so it only counts down.
	limits := []ratelimit.Limit{client,
		{Key: fmt.Sprintf("find:booking:%s:%d:%s", v.CinemaID, number, client.Key), Rule: visit.FindPerBookingClient}}
	ok, wait, err := ratelimit.TakeAll(c.Request().Context(), h.Limits, limits...)
	if err != nil {
		return err
	}
	if !ok {
		return h.tooMany(c, v, wait.Seconds())
	}
	return h.lookUp(c, v, number, email, code, limits)
}

// readFindForm is the look-up form as sent: a kiosk's cinema is its own, whatever was sent.
func (h *Handler) readFindForm(c echo.Context) (bookingview.FindView, error) {
	v, err := h.findView(c)
	if err != nil {
		return v, err
	}
	if !v.Kiosk {
		v.CinemaID = strings.TrimSpace(c.FormValue("cinema"))
	}
	v.Number = strings.TrimSpace(c.FormValue("number"))
	v.Email = strings.TrimSpace(c.FormValue("email"))
	return v, nil
}

// findClient is the allowance of look-ups the person uses up: the client's, or a signed-in
// staff member's own.
func (h *Handler) findClient(c echo.Context, v bookingview.FindView) ratelimit.Limit {
	client := ratelimit.Limit{Key: "find:client:" + web.ClientKey(c), Rule: visit.FindPerClient}
	if user := h.Site.StaffUser(c); v.Staff && user != "" {
		client.Key = "find:staff:" + user // a counter's staff share one address; each has an allowance
	}
	return client
}

// lookUpCode reads the ticket code a look-up was made with and puts its booking into v; code
// is nil for a look-up by number. refusal says why a code is not accepted ("" when none); a
// kiosk says it beside the scan field and keeps only what the guest typed.
func (h *Handler) lookUpCode(c echo.Context, v *bookingview.FindView) (code *tickets.Code, refusal string) {
	field := v.Number
	if scanned := strings.TrimSpace(c.FormValue("code")); scanned != "" && v.Kiosk {
		field = scanned
	} else if v.Kiosk && isTicketCode(v.Email) {
		field = v.Email // the guest had touched the address field before holding the ticket up
	}
	if !isTicketCode(field) {
		return nil, ""
	}
	// Staff look up by a ticket's code; so does a kiosk, where the printed ticket in the
	// guest's hand is the proof (as for collecting), as long as it is a ticket of the
	// booking as it is now.
	got, msg := h.readTicketCode(web.Loc(c), v.Staff || v.Kiosk, field)
	if msg != "" {
		if v.Kiosk {
			v.ScanError = msg
			v.Number, v.Email = keptTyped(v.Number), keptTyped(v.Email)
		}
		return nil, msg
	}
	v.CinemaID = got.CinemaID
	v.Number = strconv.FormatInt(got.BookingNumber, 10)
	return &got, ""
}

// findDetails reads the booking number and e-mail address of the look-up form; ok is false
// when they are incomplete or malformed, or no cinema is chosen. Staff look up by number
// alone; a ticket's code (byCode) is its own proof.
func findDetails(v bookingview.FindView, byCode bool) (number int64, email string, ok bool) {
	number, err := strconv.ParseInt(v.Number, 10, 64)
	addr, mailErr := mail.ParseAddress(v.Email)
	if addr != nil {
		email = addr.Address
	}
	if v.Staff || byCode {
		mailErr = nil // staff look up by number alone; a ticket's code is its own proof
	}
	ok = err == nil && number > 0 && len(v.Number) <= 12 && mailErr == nil && v.CinemaID != ""
	return number, email, ok
}

// findIncomplete says that the look-up form is not filled in well, in the words for staff or
// for a customer.
func findIncomplete(l *i18n.Localizer, staff bool) string {
	if staff {
		return l.T("booking.find_incomplete_staff")
	}
	return l.T("booking.find_incomplete")
}

// lookUp reads the booking and binds the visit to it when the look-up proves it (limits were
// taken for the attempt; they are given back unless the look-up failed).
func (h *Handler) lookUp(c echo.Context, v bookingview.FindView, number int64, email string, code *tickets.Code, limits []ratelimit.Limit) error {
	ctx := c.Request().Context()
	how := "by number"
	if code != nil {
		how = "by ticket code"
	}
	b, err := h.Visits.ReadBooking(ctx, v.CinemaID, number)
	switch {
	case errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrInvalidRequest), err == nil && !lookUpProves(b, v.Staff, email, code):
		if there := h.bookingElsewhere(c, v, number, email, code); there != "" {
			h.giveBackLookUp(c, limits) // the booking was proved, only not here
			v.CinemaID = there
			return h.refuseOtherCinema(c, v, false)
		}
		return h.bookingNotFound(c, v, number, how, code != nil)
	case err != nil:
		// The ticketing system failed, not the person: the attempt does not count.
		h.giveBackLookUp(c, limits)
		return h.Visits.FromUpstream(err, h.Site.URL("booking.find"), web.Loc(c).T("booking.try_again"))
	}
	h.giveBackLookUp(c, limits)
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionLookup, CinemaID: v.CinemaID, BookingNumber: number, Detail: how})
	if err := h.Visits.BindBooking(c, visit.Bound{CinemaID: v.CinemaID, Number: number}); err != nil {
		return err
	}
	h.Visits.RememberCustomer(c, b.CustomerName)
	return web.Redirect(c, h.Site.URL("booking.show"))
}

// bookingElsewhere is the other cinema whose booking a typed number is (proved as here: by its
// e-mail, or by staff), when a counter or kiosk that stands in one cinema found nothing in its
// own; "" otherwise. A scanned code names its cinema and was refused before the look-up.
func (h *Handler) bookingElsewhere(c echo.Context, v bookingview.FindView, number int64, email string, code *tickets.Code) string {
	here := web.DeviceOf(c).CinemaID
	if code != nil || v.CinemaID != here {
		return ""
	}
	return h.Visits.BookingElsewhere(c.Request().Context(), here, number, v.Staff, email)
}

// lookUpProves reports whether a look-up proves booking b its own: staff need nothing more; a
// customer the booking's e-mail address; a kiosk a ticket's code that is a ticket of the
// booking as it is now (one given back, moved or re-seated is no proof any more).
func lookUpProves(b cinema.Booking, staff bool, email string, code *tickets.Code) bool {
	if code != nil && !staff {
		return code.CurrentIn(b)
	}
	return visit.Proves(b, staff, email)
}

// bookingNotFound answers a look-up that found no booking, or one it does not prove.
func (h *Handler) bookingNotFound(c echo.Context, v bookingview.FindView, number int64, how string, byCode bool) error {
	l := web.Loc(c)
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionLookup, CinemaID: v.CinemaID, BookingNumber: number, Detail: how + ": not found"})
	// One neutral answer for every wrong detail: it never says which part was wrong, so
	// the form cannot be used to learn booking numbers or e-mail addresses.
	v.Error = l.T("booking.find_not_found")
	switch {
	case v.Staff:
		v.Error = l.T("booking.find_not_found_staff", "Number", v.Number)
	case byCode:
		// The code is genuine (signed): say plainly that this ticket no longer counts.
		v.Error, v.ScanError, v.Number, v.Email = "", l.T("booking.find_code_not_current"), "", keptTyped(v.Email)
	}
	return h.Site.Render(c, http.StatusNotFound, h.findTitle(c), bookingview.Find(v))
}

// giveBackLookUp gives back the attempt a look-up took: it proved the booking, or the
// ticketing system failed.
func (h *Handler) giveBackLookUp(c echo.Context, limits []ratelimit.Limit) {
	ctx := c.Request().Context()
	if err := ratelimit.GiveAll(ctx, h.Limits, limits...); err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("give back look-up attempt", "err", err)
	}
}

// findRefused answers a look-up that never reached the ticketing system (a malformed number,
// an unreadable ticket code). It counts against the client: the form is no way around the limit.
func (h *Handler) findRefused(c echo.Context, v bookingview.FindView, msg string, client ratelimit.Limit) error {
	ok, wait, err := h.Limits.Take(c.Request().Context(), client.Key, client.Rule)
	if err != nil {
		return err
	}
	if !ok {
		return h.tooMany(c, v, wait.Seconds())
	}
	if v.ScanError == "" {
		v.Error = msg // a kiosk's scan says it beside the scan field
	}
	return h.Site.Render(c, http.StatusUnprocessableEntity, h.findTitle(c), bookingview.Find(v))
}

// refuseOtherCinema answers a look-up, at a counter or kiosk that stands in one cinema, of a
// booking or ticket code of another (v.CinemaID): in words, before the booking is read, so
// nothing of it can be changed, paid for or printed here. It is no guess (the code is signed,
// the cinema chosen), so it counts against no limit.
func (h *Handler) refuseOtherCinema(c echo.Context, v bookingview.FindView, scanned bool) error {
	ctx := c.Request().Context()
	here := web.DeviceOf(c).CinemaID
	there := v.CinemaID
	msg := words.OtherCinema(web.Loc(c), h.Visits.CinemaByID(ctx, there).Name, h.Visits.CinemaByID(ctx, here).Name, v.Staff)
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionLookup, CinemaID: there, Detail: "refused: a booking of another cinema than this terminal's " + here})
	if v.Kiosk {
		v.CinemaID = here
		v.Number, v.Email = keptTyped(v.Number), keptTyped(v.Email)
	}
	if v.Kiosk && scanned {
		v.ScanError, v.Number = msg, ""
	} else {
		v.Error = msg
	}
	return h.Site.Render(c, http.StatusUnprocessableEntity, h.findTitle(c), bookingview.Find(v))
}

// keptTyped is what a kiosk's look-up form shows again of a field after a scan: what the
// guest typed, but not a code the scanner typed into it.
func keptTyped(field string) string {
	if isTicketCode(field) {
		return ""
	}
	return field
}

// isTicketCode reports whether a look-up field holds a scanned ticket code (internal/tickets:
// "TKT1 booking=… sig=…") rather than a booking number.
func isTicketCode(field string) bool {
	return len(field) > 3 && strings.EqualFold(field[:3], "TKT")
}

// readTicketCode checks a scanned ticket code. It returns the code, or what to tell the person
// (in l's language): only staff look up by code (a customer's own code is no proof of the
// e-mail address), and a forged or unreadable code says so plainly.
func (h *Handler) readTicketCode(l *i18n.Localizer, staffLookUp bool, field string) (tickets.Code, string) {
	if !staffLookUp {
		return tickets.Code{}, l.T("booking.find_code_not_for_customers")
	}
	if h.Mail == nil || h.Mail.Signer == nil {
		return tickets.Code{}, l.T("booking.find_code_unchecked")
	}
	code, err := h.Mail.Signer.Parse(field)
	switch {
	case errors.Is(err, tickets.ErrForged):
		return tickets.Code{}, l.T("booking.find_code_forged")
	case err != nil:
		return tickets.Code{}, l.T("booking.find_code_unreadable")
	}
	return code, ""
}

func (h *Handler) tooMany(c echo.Context, v bookingview.FindView, seconds float64) error {
	c.Response().Header().Set("Retry-After", strconv.Itoa(words.WholeSeconds(seconds)))
	l := web.Loc(c)
	v.Error = l.T("booking.find_too_many", "Wait", words.Wait(l, seconds))
	return h.Site.Render(c, http.StatusTooManyRequests, h.findTitle(c), bookingview.Find(v))
}

// forgetBooking unbinds the booking from this visit (a shared computer, the kiosk). An edit in
// progress is cancelled upstream, so its added seats do not stay held for nobody.
func (h *Handler) forgetBooking(c echo.Context) error {
	ctx := c.Request().Context()
	h.Visits.ReleaseEdit(c)
	h.Sessions.Remove(ctx, visit.SessBookingCinema)
	h.Sessions.Remove(ctx, visit.SessBookingName)
	h.Sessions.Remove(ctx, visit.SessBookingNumber)
	h.Visits.ClearEdit(c)
	if err := h.Site.RenewSession(c); err != nil {
		return err
	}
	return web.Redirect(c, h.Site.URL("home"))
}
