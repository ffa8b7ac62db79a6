package bff

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
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages/kiosk"
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
	collectInSession   = web.SessionValue[collectVisit]{Key: sessKioskCollect}
	collectedInSession = web.SessionValue[collectedVisit]{Key: sessKioskCollected}
)

// requireCollectDevice: tickets are collected at a kiosk or at the box office. A customer's own
// device has the booking page and its printable tickets instead.
func (s *Server) requireCollectDevice(c echo.Context) error {
	if m := deviceOf(c).Mode; m == device.Kiosk || m == device.Counter {
		return nil
	}
	l := loc(c)
	return &web.Error{Code: web.ENotFound, Heading: l.T("kiosk.collect_elsewhere_heading"),
		Message: l.T("kiosk.collect_elsewhere"), BackURL: s.url(RouteFindBooking), BackLabel: l.T("kiosk.find_my_booking")}
}

func (s *Server) collectView(c echo.Context) (kiosk.CollectView, error) {
	v := kiosk.CollectView{ActionURL: s.url(RouteKioskCollect), CSRFToken: csrfToken(c), Staff: s.staffMember(c) != ""}
	list, err := s.cinemas(c.Request().Context())
	if err != nil {
		return v, s.fromUpstream(err, s.url(RouteKioskCollect), loc(c).T("kiosk.try_again"))
	}
	for _, ci := range list {
		v.Cinemas = append(v.Cinemas, kiosk.Option{Value: ci.ID, Label: ci.Name})
	}
	return v, nil
}

// showCollect is the collect-tickets form.
func (s *Server) showCollect(c echo.Context) error {
	if err := s.requireCollectDevice(c); err != nil {
		return err
	}
	v, err := s.collectView(c)
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, loc(c).T("kiosk.collect_heading"), kiosk.Collect(v))
}

// collectTickets finds the booking by the scanned QR code or by number and e-mail, then prints
// its tickets, or first asks when they were printed before.
func (s *Server) collectTickets(c echo.Context) error {
	if err := s.requireCollectDevice(c); err != nil {
		return err
	}
	v, err := s.collectView(c)
	if err != nil {
		return err
	}
	var cinemaID string
	var number int64
	if code := strings.TrimSpace(c.FormValue("code")); code != "" {
		cinemaID, number, err = s.collectByCode(c, &v, code)
	} else {
		cinemaID, number, err = s.collectByDetails(c, &v)
	}
	if err != nil {
		return err
	}
	if v.ScanError != "" || v.Error != "" {
		status := http.StatusUnprocessableEntity
		if c.Response().Header().Get("Retry-After") != "" {
			status = http.StatusTooManyRequests
		}
		return s.render(c, status, loc(c).T("kiosk.collect_heading"), kiosk.Collect(v))
	}
	return s.startCollection(c, cinemaID, number)
}

// collectClientLimit is the look-up limit of this client (limits.go), shared with the booking
// look-up: only failed attempts count.
func (s *Server) collectClientLimit(c echo.Context) ratelimit.Limit {
	client := ratelimit.Limit{Key: "find:client:" + web.ClientKey(c), Rule: findPerClient}
	if user := s.staffUser(c); user != "" {
		client.Key = "find:staff:" + user // a counter's staff share one address; each has an allowance
	}
	return client
}

// tooManyText says how long to wait.
func tooManyText(c echo.Context, wait time.Duration) string {
	n := wholeSeconds(wait.Seconds())
	c.Response().Header().Set("Retry-After", strconv.Itoa(n))
	return loc(c).N("kiosk.too_many", n)
}

// countCollectFailure counts an attempt that never reached the ticketing system against the
// client; the answer is msg, or the wait once the client used up its attempts.
func (s *Server) countCollectFailure(c echo.Context, msg string) (string, error) {
	client := s.collectClientLimit(c)
	ok, wait, err := s.limits.Take(c.Request().Context(), client.Key, client.Rule)
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
func (s *Server) collectByCode(c echo.Context, v *kiosk.CollectView, raw string) (string, int64, error) {
	ctx := c.Request().Context()
	l := loc(c)
	unreadable := l.T("kiosk.scan_unreadable")
	if s.mail == nil || s.mail.signer == nil {
		v.ScanError = l.T("kiosk.scan_unavailable")
		return "", 0, nil
	}
	code, err := s.mail.signer.Parse(raw)
	if err != nil {
		loggerFrom(ctx, s.logger).Info("kiosk: ticket code refused", "err", err, "forged", errors.Is(err, tickets.ErrForged))
		if errors.Is(err, tickets.ErrForged) {
			unreadable = l.T("kiosk.scan_forged")
		}
		v.ScanError, err = s.countCollectFailure(c, unreadable)
		return "", 0, err
	}
	b, err := s.readBooking(ctx, code.CinemaID, code.BookingNumber)
	switch {
	case errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrInvalidRequest):
		v.ScanError = l.T("kiosk.scan_not_found")
		return "", 0, nil
	case err != nil:
		return "", 0, s.fromUpstream(err, s.url(RouteKioskCollect), l.T("kiosk.try_again"))
	}
	if code.BookingID != "" && b.ID != "" && code.BookingID != b.ID {
		// The number now belongs to another booking: this code is not for it.
		v.ScanError = l.T("kiosk.scan_stale")
		return "", 0, nil
	}
	s.recordAudit(c, audit.Entry{Action: audit.ActionLookup, CinemaID: code.CinemaID, BookingNumber: code.BookingNumber, Detail: "collect: by ticket code"})
	return code.CinemaID, code.BookingNumber, nil
}

// collectByDetails checks the booking number and e-mail address as the booking look-up does
// (staff need the number only), with the same limits: failures count per client and per
// booking number and client; a success or an outage gives its attempt back.
func (s *Server) collectByDetails(c echo.Context, v *kiosk.CollectView) (string, int64, error) {
	ctx := c.Request().Context()
	l := loc(c)
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
		v.Error, err = s.countCollectFailure(c, l.T("kiosk.details_invalid"))
		return "", 0, err
	}
	client := s.collectClientLimit(c)
	limits := []ratelimit.Limit{client,
		{Key: fmt.Sprintf("find:booking:%s:%d:%s", v.CinemaID, number, client.Key), Rule: findPerBookingClient}}
	ok, wait, err := ratelimit.TakeAll(ctx, s.limits, limits...)
	if err != nil {
		return "", 0, err
	}
	if !ok {
		v.Error = tooManyText(c, wait)
		return "", 0, nil
	}
	b, err := s.readBooking(ctx, v.CinemaID, number)
	found := err == nil && (v.Staff || strings.EqualFold(strings.TrimSpace(b.CustomerEmail), addr.Address))
	switch {
	case errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrInvalidRequest), err == nil && !found:
		s.recordAudit(c, audit.Entry{Action: audit.ActionLookup, CinemaID: v.CinemaID, BookingNumber: number, Detail: "collect: not found"})
		v.Error = l.T("kiosk.not_found")
		return "", 0, nil
	case err != nil:
		// The ticketing system failed, not the person: the attempt does not count.
		if gerr := ratelimit.GiveAll(ctx, s.limits, limits...); gerr != nil {
			loggerFrom(ctx, s.logger).Warn("give back look-up attempt", "err", gerr)
		}
		return "", 0, s.fromUpstream(err, s.url(RouteKioskCollect), l.T("kiosk.try_again"))
	}
	if err := ratelimit.GiveAll(ctx, s.limits, limits...); err != nil {
		loggerFrom(ctx, s.logger).Warn("give back look-up attempt", "err", err)
	}
	s.recordAudit(c, audit.Entry{Action: audit.ActionLookup, CinemaID: v.CinemaID, BookingNumber: number, Detail: "collect: by number"})
	return v.CinemaID, number, nil
}

// startCollection prints the booking's tickets, unless they were printed before: then the
// person is asked first.
func (s *Server) startCollection(c echo.Context, cinemaID string, number int64) error {
	ctx := c.Request().Context()
	s.sessions.Remove(ctx, sessKioskCollected)
	cv := collectVisit{CinemaID: cinemaID, Number: number}
	if s.collections != nil {
		earlier, err := s.collections.Latest(ctx, cinemaID, number)
		switch {
		case err == nil:
			cv.BeforeAt, cv.BeforeDevice, cv.BeforeName, cv.BeforeOurs = earlier.At, earlier.DeviceID, earlier.DeviceName, true
			s.saveCollectVisit(c, cv)
			return s.redirect(c, s.url(RouteKioskCollectAgain))
		case !errors.Is(err, tickets.ErrNoCollection):
			return err
		}
	}
	col, err := s.markCollected(c, cinemaID, number)
	if err != nil {
		return err
	}
	if col.Before {
		// Printed before somewhere we have no record of (the box office's own system): ask.
		cv.Marked, cv.BeforeAt = true, col.At
		s.saveCollectVisit(c, cv)
		return s.redirect(c, s.url(RouteKioskCollectAgain))
	}
	return s.finishCollection(c, cv, false)
}

// markCollected tells the upstream the tickets are printed. Its failure does not keep the
// tickets from the person: they are valid either way, our own record says they were printed,
// and the failure is logged for the operator.
func (s *Server) markCollected(c echo.Context, cinemaID string, number int64) (upstream.Collection, error) {
	ctx := c.Request().Context()
	col, err := s.ticketing.MarkBookingCollected(ctx, cinemaID, number)
	if err != nil {
		loggerFrom(ctx, s.logger).Warn("tickets printed but not marked collected upstream", "cinema", cinemaID, "booking", number, "err", err)
		return upstream.Collection{}, nil
	}
	return col, nil
}

func (s *Server) saveCollectVisit(c echo.Context, cv collectVisit) {
	collectInSession.Put(c.Request().Context(), s.sessions, cv)
}

func (s *Server) currentCollectVisit(c echo.Context) (collectVisit, bool) {
	cv, ok := collectInSession.Get(c.Request().Context(), s.sessions)
	if !ok || cv.CinemaID == "" || cv.Number == 0 {
		return collectVisit{}, false
	}
	return cv, true
}

// finishCollection records the collection (our row, the audit trail when staff is signed in)
// and shows the print view.
func (s *Server) finishCollection(c echo.Context, cv collectVisit, again bool) error {
	ctx := c.Request().Context()
	dev := deviceOf(c)
	tc := tickets.Collection{CinemaID: cv.CinemaID, BookingNumber: cv.Number, DeviceID: dev.ID, DeviceName: dev.Name, Actor: s.staffUser(c), At: s.now()}
	if s.collections != nil {
		var err error
		if tc, err = s.collections.Record(ctx, tc); err != nil {
			return err
		}
	}
	detail := "tickets printed"
	if again {
		detail = "tickets printed again"
	}
	s.recordAudit(c, audit.Entry{Action: audit.ActionCollect, CinemaID: cv.CinemaID, BookingNumber: cv.Number, Detail: detail})
	collectInSession.Remove(ctx, s.sessions)
	collectedInSession.Put(ctx, s.sessions, collectedVisit{CinemaID: cv.CinemaID, Number: cv.Number, ID: tc.ID, Again: again})
	return s.redirect(c, s.url(RouteKioskCollected))
}

// showCollectAgain asks "print them again?" with when and where they were printed before.
func (s *Server) showCollectAgain(c echo.Context) error {
	if err := s.requireCollectDevice(c); err != nil {
		return err
	}
	cv, ok := s.currentCollectVisit(c)
	if !ok {
		return s.redirect(c, s.url(RouteKioskCollect))
	}
	ctx := c.Request().Context()
	l := loc(c)
	cin := s.cinemaByID(ctx, cv.CinemaID)
	v := kiosk.AgainView{Number: strconv.FormatInt(cv.Number, 10), ConfirmURL: s.url(RouteKioskCollectAgain),
		CancelURL: s.collectDoneURL(c), CSRFToken: csrfToken(c)}
	where := s.collectedWhere(c, l, cv)
	switch at := cv.BeforeAt; {
	case at.IsZero():
		v.Question = l.T("kiosk.again_question_undated")
	case where == "":
		v.Question = l.T("kiosk.again_question", "Date", l.Time(at, cin.Location(), i18n.DayMonth), "Clock", l.Time(at, cin.Location(), i18n.Clock))
	default:
		v.Question = l.T("kiosk.again_question_where", "Where", where,
			"Date", l.Time(at, cin.Location(), i18n.DayMonth), "Clock", l.Time(at, cin.Location(), i18n.Clock))
	}
	return s.render(c, http.StatusOK, l.T("kiosk.again_title"), kiosk.Again(v))
}

// collectDoneURL is where "Done" posts: at a kiosk the visit ends (the next guest starts
// afresh); at the counter only the customer's part does (Next customer), staff stay signed in.
func (s *Server) collectDoneURL(c echo.Context) string {
	if deviceOf(c).Mode == device.Counter && s.staffUser(c) != "" {
		return s.url(RouteNextCustomer)
	}
	return s.url(RouteVisitReset)
}

// collectedWhere says where the tickets were printed before, from our record ("" when only
// the ticketing system knew): "at this kiosk", "at “Counter 2”", "at another terminal".
func (s *Server) collectedWhere(c echo.Context, l *i18n.Localizer, cv collectVisit) string {
	if !cv.BeforeOurs {
		return ""
	}
	dev := deviceOf(c)
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
func (s *Server) collectAgain(c echo.Context) error {
	if err := s.requireCollectDevice(c); err != nil {
		return err
	}
	cv, ok := s.currentCollectVisit(c)
	if !ok {
		l := loc(c)
		return &web.Error{Code: web.EGone, Heading: l.T("kiosk.collect_gone_heading"), Message: l.T("kiosk.collect_gone"),
			BackURL: s.url(RouteKioskCollect), BackLabel: l.T("kiosk.collect_title")}
	}
	if !cv.Marked {
		if _, err := s.markCollected(c, cv.CinemaID, cv.Number); err != nil {
			return err
		}
	}
	return s.finishCollection(c, cv, true)
}

// showCollected is the print view of the collected tickets: printed by itself once per
// collection on the kiosk, with a button to print again and "Done" to start over.
func (s *Server) showCollected(c echo.Context) error {
	if err := s.requireCollectDevice(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	cv, ok := collectedInSession.Get(ctx, s.sessions)
	if !ok || cv.Number == 0 {
		return s.redirect(c, s.url(RouteKioskCollect))
	}
	l := loc(c)
	b, err := s.readBooking(ctx, cv.CinemaID, cv.Number)
	if err != nil {
		return s.fromUpstream(err, s.url(RouteKioskCollect), l.T("kiosk.back"))
	}
	number := strconv.FormatInt(cv.Number, 10)
	key := number
	if cv.ID != "" {
		key += "-" + cv.ID
	}
	v := kiosk.CollectedView{Number: number, Tickets: s.ticketsView(ctx, b, ""), PrintKey: key, Again: cv.Again,
		DoneURL: s.collectDoneURL(c), CSRFToken: csrfToken(c)}
	return s.render(c, http.StatusOK, l.T("kiosk.collected_title", "Number", number), kiosk.Collected(v))
}
