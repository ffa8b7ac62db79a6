package kiosk

import (
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/keypad"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages/kioskview"
)

// Collecting (printing) booked tickets at a kiosk or at the box office.

// collectVisit is a booking this visit proved it may collect (QR code, or number and e-mail),
// waiting for "print them again" when it was printed before.
type collectVisit struct {
	CinemaID string `json:"cinema"`
	Number   int64  `json:"number"`
	// Marked: the upstream was told of this collection already (it knew of an earlier one).
	Marked bool `json:"marked,omitempty"`
	// The earlier printing: when, where (our record), or only the upstream's time.
	BeforeAt     time.Time `json:"beforeAt"`
	BeforeDevice string    `json:"beforeDevice,omitempty"`
	BeforeName   string    `json:"beforeName,omitempty"`
	BeforeOurs   bool      `json:"beforeOurs,omitempty"`
}

// collectedVisit is the collection whose tickets the print view shows.
type collectedVisit struct {
	CinemaID string `json:"cinema"`
	Number   int64  `json:"number"`
	ID       string `json:"id"`
	Again    bool   `json:"again,omitempty"`
}

// The booking this visit may collect, and the collection it just made.
var (
	collectInSession   = web.SessionValue[collectVisit]{Key: sessCollect}
	collectedInSession = web.SessionValue[collectedVisit]{Key: sessCollected}
)

// requireCollectDevice: tickets are collected at a kiosk or at the box office. A customer's own
// device has the booking page and its printable tickets instead.
func (h *Handler) requireCollectDevice(c echo.Context) error {
	if m := web.DeviceOf(c).Mode; m == device.Kiosk || m == device.Counter {
		return nil
	}
	l := web.Loc(c)
	return &web.Error{Code: web.ENotFound, Heading: l.T("kiosk.collect_elsewhere_heading"),
		Message: l.T("kiosk.collect_elsewhere"), BackURL: h.url("booking.find"), BackLabel: l.T("kiosk.find_my_booking")}
}

func (h *Handler) collectView(c echo.Context) (kioskview.CollectView, error) {
	v := kioskview.CollectView{ActionURL: h.url("kiosk.collect"), CSRFToken: web.CSRFToken(c), Staff: h.Site.StaffMember(c) != "",
		Keypad: web.DeviceOf(c).Mode == device.Kiosk}
	list, err := h.Visits.Cinemas(c.Request().Context())
	if err != nil {
		return v, h.Visits.FromUpstream(err, h.url("kiosk.collect"), web.Loc(c).T("kiosk.try_again"))
	}
	for _, ci := range list {
		v.Cinemas = append(v.Cinemas, kioskview.Option{Value: ci.ID, Label: ci.Name})
	}
	if here := web.DeviceOf(c).CinemaID; v.Keypad && here != "" {
		// A kiosk stands in one cinema (set when it was enrolled): it never asks which.
		for _, o := range v.Cinemas {
			if o.Value == here {
				v.Cinemas, v.CinemaID = []kioskview.Option{o}, here
				break
			}
		}
	}
	return v, nil
}

// showCollect is the collect-tickets form.
func (h *Handler) showCollect(c echo.Context) error {
	if err := h.requireCollectDevice(c); err != nil {
		return err
	}
	v, err := h.collectView(c)
	if err != nil {
		return err
	}
	return h.Site.Render(c, http.StatusOK, web.Loc(c).T("kiosk.collect_heading"), kioskview.Collect(v))
}

// collectTickets finds the booking by the scanned QR code or by number and e-mail, then prints
// its tickets, or first asks when they were printed before.
func (h *Handler) collectTickets(c echo.Context) error {
	if err := h.requireCollectDevice(c); err != nil {
		return err
	}
	v, err := h.collectView(c)
	if err != nil {
		return err
	}
	if key := c.FormValue("key"); key != "" {
		// A key of an on-screen keypad: the form comes back with it typed, nothing is looked up.
		v.CinemaID = strings.TrimSpace(c.FormValue("cinema"))
		v.Number, v.Email = keypad.ApplyKey(c.FormValue("number"), c.FormValue("email"), key)
		return h.Site.Render(c, http.StatusOK, web.Loc(c).T("kiosk.collect_heading"), kioskview.Collect(v))
	}
	var cinemaID string
	var number int64
	if code := scannedCode(c); code != "" {
		// What was typed on the keypads stays in the form whatever the scan finds.
		v.CinemaID = strings.TrimSpace(c.FormValue("cinema"))
		v.Number, v.Email = typedOnly(c.FormValue("number")), typedOnly(c.FormValue("email"))
		cinemaID, number, err = h.collectByCode(c, &v, code)
	} else {
		cinemaID, number, err = h.collectByDetails(c, &v)
	}
	if err != nil {
		return err
	}
	if v.ScanError != "" || v.Error != "" {
		status := http.StatusUnprocessableEntity
		if c.Response().Header().Get("Retry-After") != "" {
			status = http.StatusTooManyRequests
		}
		return h.Site.Render(c, status, web.Loc(c).T("kiosk.collect_heading"), kioskview.Collect(v))
	}
	return h.startCollection(c, cinemaID, number)
}

// scannedCode is the QR code the scanner typed: into the scan field, or into the number or
// e-mail field when the guest had touched one of those before holding the code up (as the
// booking look-up reads a code typed into its number field). "" when none.
func scannedCode(c echo.Context) string {
	if code := strings.TrimSpace(c.FormValue("code")); code != "" {
		return code
	}
	for _, field := range []string{"number", "email"} {
		if v := strings.TrimSpace(c.FormValue(field)); isTicketCode(v) {
			return v
		}
	}
	return ""
}

// typedOnly is a field as the form shows it again after a scan: what was typed, not a code
// the scanner typed into it.
func typedOnly(field string) string {
	if field = strings.TrimSpace(field); isTicketCode(field) {
		return ""
	}
	return field
}

// isTicketCode reports whether a field holds a scanned ticket code (internal/tickets:
// "TKT1 booking=… sig=…") rather than a booking number or an address.
func isTicketCode(field string) bool {
	return len(field) > 3 && strings.EqualFold(field[:3], "TKT")
}

// collectClientLimit is the look-up limit of this client (Limits), shared with the booking
// look-up: only failed attempts count.
func (h *Handler) collectClientLimit(c echo.Context) ratelimit.Limit {
	client := ratelimit.Limit{Key: "find:client:" + web.ClientKey(c), Rule: h.Limits.PerClient}
	if user := h.Site.StaffUser(c); user != "" {
		client.Key = "find:staff:" + user // a counter's staff share one address; each has an allowance
	}
	return client
}

// tooManyText says how long to wait.
func tooManyText(c echo.Context, wait time.Duration) string {
	n := words.WholeSeconds(wait.Seconds())
	c.Response().Header().Set("Retry-After", strconv.Itoa(n))
	return web.Loc(c).N("kiosk.too_many", n)
}

// countCollectFailure counts an attempt that never reached the ticketing system against the
// client; the answer is msg, or the wait once the client used up its attempts.
func (h *Handler) countCollectFailure(c echo.Context, msg string) (string, error) {
	client := h.collectClientLimit(c)
	ok, wait, err := h.Limits.Store.Take(c.Request().Context(), client.Key, client.Rule)
	if err != nil {
		return "", err
	}
	if !ok {
		return tooManyText(c, wait), nil
	}
	return msg, nil
}

// collectByCode reads a scanned ticket code: a valid signature proves the person holds the
// booking's ticket or confirmation, so no e-mail is asked for. A code that is not ours is
// refused in words and counts as a failed attempt (forging one needs the signing key, so
// guessing is no way in anyway).
func (h *Handler) collectByCode(c echo.Context, v *kioskview.CollectView, raw string) (string, int64, error) {
	ctx := c.Request().Context()
	l := web.Loc(c)
	unreadable := l.T("kiosk.scan_unreadable")
	if h.Codes == nil {
		v.ScanError = l.T("kiosk.scan_unavailable")
		return "", 0, nil
	}
	code, err := h.Codes.Parse(raw)
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Info("kiosk: ticket code refused", "err", err, "forged", errors.Is(err, tickets.ErrForged))
		if errors.Is(err, tickets.ErrForged) {
			unreadable = l.T("kiosk.scan_forged")
		}
		v.ScanError, err = h.countCollectFailure(c, unreadable)
		return "", 0, err
	}
	if msg := h.otherCinema(c, code.CinemaID); msg != "" {
		v.ScanError = msg
		return "", 0, nil
	}
	rb, err := h.Bookings.Read(ctx, code.CinemaID, code.BookingNumber)
	b := h.Visits.Named(ctx).Booking(rb.Booking)
	switch {
	case errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrInvalidRequest):
		v.ScanError = l.T("kiosk.scan_not_found")
		return "", 0, nil
	case err != nil:
		return "", 0, h.Visits.FromUpstream(err, h.url("kiosk.collect"), l.T("kiosk.try_again"))
	}
	if code.BookingID != "" && b.ID != "" && code.BookingID != b.ID {
		// The number now belongs to another booking: this code is not for it.
		v.ScanError = l.T("kiosk.scan_stale")
		return "", 0, nil
	}
	if !code.CurrentIn(b) {
		// Signed by us, but the ticket was removed, moved to another show or given another
		// seat since: it stands for nothing now, and prints nothing.
		web.LoggerFrom(ctx, h.Logger).Info("kiosk: ticket code no longer current", "booking", code.BookingNumber, "line", code.Line)
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionLookup, CinemaID: code.CinemaID, BookingNumber: code.BookingNumber,
			Detail: fmt.Sprintf("collect: ticket code of line %d no longer current, refused", code.Line)})
		v.ScanError = l.T("kiosk.scan_changed")
		return "", 0, nil
	}
	if msg := h.unpaidHere(c, b); msg != "" {
		v.ScanError = msg
		return "", 0, nil
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionLookup, CinemaID: code.CinemaID, BookingNumber: code.BookingNumber, Detail: "collect: by ticket code"})
	return code.CinemaID, code.BookingNumber, nil
}

// collectByDetails checks the booking number and e-mail address as the booking look-up does
// (staff need the number only), with the same limits: failures count per client and per
// booking number and client; a success or an outage gives its attempt back.
func (h *Handler) collectByDetails(c echo.Context, v *kioskview.CollectView) (string, int64, error) {
	ctx := c.Request().Context()
	l := web.Loc(c)
	v.CinemaID = strings.TrimSpace(c.FormValue("cinema"))
	v.Number = strings.TrimSpace(c.FormValue("number"))
	v.Email = strings.TrimSpace(c.FormValue("email"))
	number, err := strconv.ParseInt(v.Number, 10, 64)
	addr, mailErr := mail.ParseAddress(v.Email)
	if addr == nil {
		addr = &mail.Address{}
	}
	if v.Staff {
		mailErr = nil
	}
	if err != nil || number <= 0 || len(v.Number) > 12 || mailErr != nil || v.CinemaID == "" {
		v.Error, err = h.countCollectFailure(c, l.T("kiosk.details_invalid"))
		return "", 0, err
	}
	if msg := h.otherCinema(c, v.CinemaID); msg != "" {
		v.Error, v.CinemaID = msg, web.DeviceOf(c).CinemaID
		return "", 0, nil
	}
	client := h.collectClientLimit(c)
	limits := []ratelimit.Limit{client,
		{Key: fmt.Sprintf("find:booking:%s:%d:%s", v.CinemaID, number, client.Key), Rule: h.Limits.PerBookingClient}}
	ok, wait, err := ratelimit.TakeAll(ctx, h.Limits.Store, limits...)
	if err != nil {
		return "", 0, err
	}
	if !ok {
		v.Error = tooManyText(c, wait)
		return "", 0, nil
	}
	rb, err := h.Bookings.Read(ctx, v.CinemaID, number)
	b := h.Visits.Named(ctx).Booking(rb.Booking)
	found := err == nil && visit.Proves(b, v.Staff, addr.Address)
	switch {
	case errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrInvalidRequest), err == nil && !found:
		if msg := h.collectElsewhere(c, v, number, addr.Address); msg != "" {
			v.Error = msg
			return "", 0, nil
		}
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionLookup, CinemaID: v.CinemaID, BookingNumber: number, Detail: "collect: not found"})
		v.Error = l.T("kiosk.not_found")
		return "", 0, nil
	case err != nil:
		// The ticketing system failed, not the person: the attempt does not count.
		if gerr := ratelimit.GiveAll(ctx, h.Limits.Store, limits...); gerr != nil {
			web.LoggerFrom(ctx, h.Logger).Warn("give back look-up attempt", "err", gerr)
		}
		return "", 0, h.Visits.FromUpstream(err, h.url("kiosk.collect"), l.T("kiosk.try_again"))
	}
	if err := ratelimit.GiveAll(ctx, h.Limits.Store, limits...); err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("give back look-up attempt", "err", err)
	}
	if msg := h.unpaidHere(c, b); msg != "" {
		v.Error = msg
		return "", 0, nil
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionLookup, CinemaID: v.CinemaID, BookingNumber: number, Detail: "collect: by number"})
	return v.CinemaID, number, nil
}

// collectElsewhere is why a counter or kiosk that stands in one cinema, having found nothing
// of the number in its own, prints nothing of another cinema's booking of that number whose
// e-mail matches (staff: any): in words naming where it belongs; "" when there is none.
func (h *Handler) collectElsewhere(c echo.Context, v *kioskview.CollectView, number int64, email string) string {
	here := web.DeviceOf(c).CinemaID
	if v.CinemaID != here {
		return ""
	}
	there := h.Visits.BookingElsewhere(c.Request().Context(), here, number, v.Staff, email)
	if there == "" {
		return ""
	}
	return h.otherCinema(c, there)
}

// otherCinema is why a counter or kiosk that stands in one cinema prints nothing of a booking
// or ticket of cinema there (in words for staff or for a guest, and in the audit trail), or ""
// when it serves that cinema. It is said before the booking is read.
func (h *Handler) otherCinema(c echo.Context, there string) string {
	dev := web.DeviceOf(c)
	if dev.Serves(there) {
		return ""
	}
	ctx := c.Request().Context()
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionLookup, CinemaID: there, Detail: "collect: refused, a booking of another cinema than this terminal's " + dev.CinemaID})
	return words.OtherCinema(web.Loc(c), h.Visits.CinemaByID(ctx, there).Name, h.Visits.CinemaByID(ctx, dev.CinemaID).Name, h.Site.StaffUser(c) != "")
}

// unpaidHere is why a kiosk prints nothing for b: a reservation not paid yet (its tickets are
// not valid until it is), in words that send the guest to the box office. "" when b may be
// printed here: paid, or not known to be unpaid (the upstream did not say), or at the counter,
// where staff take the payment.
func (h *Handler) unpaidHere(c echo.Context, b cinema.Booking) string {
	if web.DeviceOf(c).Mode != device.Kiosk || !b.PaidKnown || b.Paid {
		return ""
	}
	return web.Loc(c).T("kiosk.unpaid")
}

// startCollection prints the booking's tickets, unless they were printed before: then the
// person is asked first.
func (h *Handler) startCollection(c echo.Context, cinemaID string, number int64) error {
	ctx := c.Request().Context()
	h.Sessions.Remove(ctx, sessCollected)
	cv := collectVisit{CinemaID: cinemaID, Number: number}
	if h.Collections != nil {
		earlier, err := h.Collections.Latest(ctx, cinemaID, number)
		switch {
		case err == nil:
			cv.BeforeAt, cv.BeforeDevice, cv.BeforeName, cv.BeforeOurs = earlier.At, earlier.DeviceID, earlier.DeviceName, true
			h.saveCollectVisit(c, cv)
			return web.Redirect(c, h.url("kiosk.collect.again"))
		case !errors.Is(err, tickets.ErrNoCollection):
			return err
		}
	}
	col, err := h.markCollected(c, cinemaID, number)
	if err != nil {
		return err
	}
	if col.Before {
		// Printed before somewhere we have no record of (the box office's own system): ask.
		cv.Marked, cv.BeforeAt = true, col.At
		h.saveCollectVisit(c, cv)
		return web.Redirect(c, h.url("kiosk.collect.again"))
	}
	return h.finishCollection(c, cv, false)
}

// markCollected tells the upstream the tickets are printed, when the operator configured its
// route (Ticketing); otherwise our own record (finishCollection) is the only one, and nothing
// is sent or logged. Its failure does not keep the tickets from the person: they are valid
// either way, our own record says they were printed, and the failure is logged for the operator.
func (h *Handler) markCollected(c echo.Context, cinemaID string, number int64) (upstream.Collection, error) {
	if h.Ticketing == nil {
		return upstream.Collection{}, nil
	}
	ctx := c.Request().Context()
	col, err := h.Ticketing.MarkBookingCollected(ctx, cinemaID, number)
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("tickets printed but not marked collected upstream", "cinema", cinemaID, "booking", number, "err", err)
		return upstream.Collection{}, nil
	}
	return col, nil
}

func (h *Handler) saveCollectVisit(c echo.Context, cv collectVisit) {
	collectInSession.Put(c.Request().Context(), h.Sessions, cv)
}

func (h *Handler) currentCollectVisit(c echo.Context) (collectVisit, bool) {
	cv, ok := collectInSession.Get(c.Request().Context(), h.Sessions)
	if !ok || cv.CinemaID == "" || cv.Number == 0 {
		return collectVisit{}, false
	}
	return cv, true
}

// finishCollection records the collection (our row, the audit trail when staff is signed in)
// and shows the print view.
func (h *Handler) finishCollection(c echo.Context, cv collectVisit, again bool) error {
	ctx := c.Request().Context()
	dev := web.DeviceOf(c)
	tc := tickets.Collection{CinemaID: cv.CinemaID, BookingNumber: cv.Number, DeviceID: dev.ID, DeviceName: dev.Name, Actor: h.Site.StaffUser(c), At: h.Now()}
	if h.Collections != nil {
		var err error
		if tc, err = h.Collections.Record(ctx, tc); err != nil {
			return err
		}
	}
	detail := "tickets printed"
	if again {
		detail = "tickets printed again"
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionCollect, CinemaID: cv.CinemaID, BookingNumber: cv.Number, Detail: detail})
	collectInSession.Remove(ctx, h.Sessions)
	collectedInSession.Put(ctx, h.Sessions, collectedVisit{CinemaID: cv.CinemaID, Number: cv.Number, ID: tc.ID, Again: again})
	return web.Redirect(c, h.url("kiosk.collected"))
}

// showCollectAgain asks "print them again?" with when and where they were printed before.
func (h *Handler) showCollectAgain(c echo.Context) error {
	if err := h.requireCollectDevice(c); err != nil {
		return err
	}
	cv, ok := h.currentCollectVisit(c)
	if !ok {
		return web.Redirect(c, h.url("kiosk.collect"))
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	cin := h.Visits.CinemaByID(ctx, cv.CinemaID)
	v := kioskview.AgainView{Number: strconv.FormatInt(cv.Number, 10), ConfirmURL: h.url("kiosk.collect.again"),
		CancelURL: h.collectDoneURL(c), CSRFToken: web.CSRFToken(c)}
	where := h.collectedWhere(c, l, cv)
	switch at := cv.BeforeAt; {
	case at.IsZero():
		v.Question = l.T("kiosk.again_question_undated")
	case where == "":
		v.Question = l.T("kiosk.again_question", "Date", l.Time(at, cin.Location(), i18n.DayMonth), "Clock", l.Time(at, cin.Location(), i18n.Clock))
	default:
		v.Question = l.T("kiosk.again_question_where", "Where", where,
			"Date", l.Time(at, cin.Location(), i18n.DayMonth), "Clock", l.Time(at, cin.Location(), i18n.Clock))
	}
	return h.Site.Render(c, http.StatusOK, l.T("kiosk.again_title"), kioskview.Again(v))
}

// collectDoneURL is where "Done" posts: at a kiosk the visit ends (the next guest starts
// afresh); at the counter only the customer's part does (Next customer), staff stay signed in.
func (h *Handler) collectDoneURL(c echo.Context) string {
	if web.DeviceOf(c).Mode == device.Counter && h.Site.StaffUser(c) != "" {
		return h.url("staff.next")
	}
	return h.url("visit.reset")
}

// collectedWhere says where the tickets were printed before, from our record ("" when only
// the ticketing system knew): "at this kiosk", "at “Counter 2”", "at another terminal".
func (h *Handler) collectedWhere(c echo.Context, l *i18n.Localizer, cv collectVisit) string {
	if !cv.BeforeOurs {
		return ""
	}
	dev := web.DeviceOf(c)
	atKiosk := dev.Mode == device.Kiosk
	switch {
	case cv.BeforeDevice != "" && cv.BeforeDevice == dev.ID && atKiosk:
		return l.T("kiosk.where_this_kiosk")
	case cv.BeforeDevice != "" && cv.BeforeDevice == dev.ID:
		return l.T("kiosk.where_this_terminal")
	case cv.BeforeName != "":
		return l.T("kiosk.where_named", "Name", cv.BeforeName)
	case atKiosk:
		return l.T("kiosk.where_other_kiosk")
	}
	return l.T("kiosk.where_other_terminal")
}

// collectAgain prints tickets that were printed before, once the person confirmed it.
func (h *Handler) collectAgain(c echo.Context) error {
	if err := h.requireCollectDevice(c); err != nil {
		return err
	}
	cv, ok := h.currentCollectVisit(c)
	if !ok {
		l := web.Loc(c)
		return &web.Error{Code: web.EGone, Heading: l.T("kiosk.collect_gone_heading"), Message: l.T("kiosk.collect_gone"),
			BackURL: h.url("kiosk.collect"), BackLabel: l.T("kiosk.collect_title")}
	}
	if !cv.Marked {
		if _, err := h.markCollected(c, cv.CinemaID, cv.Number); err != nil {
			return err
		}
	}
	return h.finishCollection(c, cv, true)
}

// showCollected is the print view of the collected tickets: printed by itself once per
// collection on the kiosk, with a button to print again and "Done" to start over.
func (h *Handler) showCollected(c echo.Context) error {
	if err := h.requireCollectDevice(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	cv, ok := collectedInSession.Get(ctx, h.Sessions)
	if !ok || cv.Number == 0 {
		return web.Redirect(c, h.url("kiosk.collect"))
	}
	l := web.Loc(c)
	rb, err := h.Bookings.Read(ctx, cv.CinemaID, cv.Number)
	if err != nil {
		return h.Visits.FromUpstream(err, h.url("kiosk.collect"), l.T("kiosk.back"))
	}
	b := h.Visits.Named(ctx).Booking(rb.Booking)
	if msg := h.unpaidHere(c, b); msg != "" {
		return &web.Error{Code: web.EConflict, Heading: l.T("kiosk.unpaid_heading"), Message: msg,
			BackURL: h.url("kiosk.collect"), BackLabel: l.T("kiosk.back")}
	}
	number := strconv.FormatInt(cv.Number, 10)
	key := number
	if cv.ID != "" {
		key += "-" + cv.ID
	}
	v := kioskview.CollectedView{Number: number, Tickets: h.Visits.TicketsView(ctx, b, ""), PrintKey: key, Again: cv.Again,
		DoneURL: h.collectDoneURL(c), CSRFToken: web.CSRFToken(c)}
	return h.Site.Render(c, http.StatusOK, l.T("kiosk.collected_title", "Number", number), kioskview.Collected(v))
}
