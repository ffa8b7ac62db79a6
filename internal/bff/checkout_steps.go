package bff

import (
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/checkout"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	co "github.com/cinemabff/cinemabff/views/pages/checkout"
)

// paymentUnderWay returns the order's starting or awaiting payment record, if any.
func (s *Server) buyPaymentUnderWay(c echo.Context, v buyVisit) (checkout.Record, bool) {
	rec, err := s.checkout().store.Active(c.Request().Context(), v.UserSessionID)
	return rec, err == nil
}

// seatWords is how a seat is written for people: "Row F, seat 12".
func seatWords(r *cinema.SeatRef) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("Row %s, seat %s", r.RowLabel, r.Label)
}

// showBuySeats shows the seat map with the order's seats ticked.
func (s *Server) showBuySeats(c echo.Context) error {
	return s.renderBuySeats(c, http.StatusOK, nil, nil)
}

func (s *Server) renderBuySeats(c echo.Context, status int, notice *components.Notice, chosen []cinema.SeatPosition) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	if _, busy := s.buyPaymentUnderWay(c, v); busy {
		return s.redirect(c, s.url(RouteBuySummary))
	}
	ctx := c.Request().Context()
	o, err := s.ticketing.GetOrder(ctx, v.UserSessionID)
	if err != nil {
		return s.buyEnded(c, v, err)
	}
	snap, err := s.seatPlans.Plan(ctx, v.CinemaID, v.SessionID)
	if err != nil {
		return s.fromUpstream(err, s.url(RouteBuySummary), "Back to your order")
	}
	plan := snap.Plan
	var yours []cinema.SeatPosition
	var cats []string
	for _, t := range o.Tickets() {
		if t.Seat != nil {
			yours = append(yours, t.Seat.Position)
			if !containsString(cats, t.Seat.AreaCategoryCode) && t.Seat.AreaCategoryCode != "" {
				cats = append(cats, t.Seat.AreaCategoryCode)
			}
		}
	}
	if chosen == nil {
		chosen = yours
	}
	count := len(yours)
	if count == 0 {
		count = v.Places
	}
	m := components.BuildSeatMap(plan, components.SeatMapOptions{ID: "buy-seats", Max: count, Yours: yours, YoursSelectable: true,
		Chosen: chosen, AreaCategories: cats, Kiosk: isKiosk(c), AsOf: s.seatsAsOf(ctx, v.CinemaID, snap.AsOf)})
	view := co.SeatsView{Session: s.buyHeader(ctx, v), ActionURL: s.url(RouteBuySeats), BackURL: s.url(RouteBuySession, v.CinemaID, v.SessionID),
		CSRFToken: csrfToken(c), Count: count, Map: m, Notice: notice, Countdown: s.buyCountdown(c, v, o)}
	if o.Total.Cents > 0 {
		view.Total = "Total " + o.Total.Format(s.cinemaByID(ctx, v.CinemaID).Locale)
	}
	return s.render(c, status, "Choose seats", co.Seats(view))
}

// chooseBuySeats moves the order's tickets to the chosen seats (SetSelectedSeats).
func (s *Server) chooseBuySeats(c echo.Context) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	form, err := c.FormParams()
	if err != nil {
		return s.renderBuySeats(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: "We could not read your choice", Body: "Please choose again."}, nil)
	}
	chosen, err := components.SeatValues(form["seat"])
	if err != nil {
		return s.renderBuySeats(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: "Please choose seats from the map"}, nil)
	}
	o, err := s.ticketing.GetOrder(ctx, v.UserSessionID)
	if err != nil {
		return s.buyEnded(c, v, err)
	}
	current := map[cinema.SeatPosition]bool{}
	for _, t := range o.Tickets() {
		if t.Seat != nil {
			current[t.Seat.Position] = true
		}
	}
	want := len(current)
	if want == 0 {
		want = v.Places
	}
	if len(chosen) != want {
		return s.renderBuySeats(c, http.StatusUnprocessableEntity, seatCountNotice(len(chosen), want), chosen)
	}
	// Seat hoarding (holds.go): an order is never given more seats than a visit may hold.
	if done, err := s.refuseVisitSeats(c, seatStepBuySeats, want, nil, s.url(RouteBuySummary)); done {
		return err
	}
	same := true
	for _, p := range chosen {
		same = same && current[p]
	}
	if !same {
		// The plan gives the chosen seats' areas (layout only): the upstream decides below
		// whether they are free.
		snap, err := s.seatPlans.Plan(ctx, v.CinemaID, v.SessionID)
		if err != nil {
			return s.fromUpstream(err, s.url(RouteBuySeats), "Choose seats")
		}
		plan := snap.Plan
		var seats []upstream.SelectedSeat
		for _, p := range chosen {
			seat, found := plan.Seat(p)
			if !found {
				return s.renderBuySeats(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: "Please choose seats from the map"}, nil)
			}
			seats = append(seats, upstream.SelectedSeat{AreaCategoryCode: seat.AreaCategoryCode, Position: p})
		}
		_, err = s.ticketing.SetSelectedSeats(ctx, upstream.SetSelectedSeatsRequest{UserSessionID: v.UserSessionID, CinemaID: v.CinemaID, SessionID: v.SessionID, Seats: seats})
		s.seatPlans.Invalidate(v.CinemaID, v.SessionID) // seats changed or refused: the next map reads them again
		switch {
		case errors.Is(err, upstream.ErrSeatsUnavailable):
			return s.renderBuySeats(c, http.StatusConflict, seatsTakenNotice, nil)
		case errors.Is(err, upstream.ErrInvalidRequest):
			return s.renderBuySeats(c, http.StatusConflict, &components.Notice{Kind: components.NoticeError, Heading: "Those seats cannot be used",
				Body: "They do not suit these tickets (for example another seating area). The map shows what is free now."}, nil)
		case err != nil:
			return s.buyEnded(c, v, err)
		}
	}
	if v.Name == "" || v.Email == "" {
		return s.redirect(c, s.url(RouteBuyDetails))
	}
	s.flash(c, "Your seats are saved.")
	return s.redirect(c, s.url(RouteBuySummary))
}

// showBuyDetails asks for the name and e-mail address.
func (s *Server) showBuyDetails(c echo.Context) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	return s.renderBuyDetails(c, http.StatusOK, v, co.DetailsView{Name: v.Name, Email: v.Email})
}

func (s *Server) renderBuyDetails(c echo.Context, status int, v buyVisit, d co.DetailsView) error {
	o, err := s.ticketing.GetOrder(c.Request().Context(), v.UserSessionID)
	if err != nil {
		return s.buyEnded(c, v, err)
	}
	d.Session, d.ActionURL, d.BackURL, d.CSRFToken = s.buyHeader(c.Request().Context(), v), s.url(RouteBuyDetails), s.url(RouteBuySeats), csrfToken(c)
	d.Countdown = s.buyCountdown(c, v, o)
	return s.render(c, status, "Your details", co.Details(d))
}

// validEmail accepts a plain address (no display name), with a dot in the domain.
func validEmail(e string) bool {
	if len(e) > 254 || strings.ContainsAny(e, " \t\r\n<>") {
		return false
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e {
		return false
	}
	at := strings.LastIndexByte(e, '@')
	return at > 0 && strings.Contains(e[at+1:], ".")
}

// saveBuyDetails keeps the name and e-mail in the visit.
func (s *Server) saveBuyDetails(c echo.Context) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	name := strings.Join(strings.Fields(c.FormValue("name")), " ")
	email := strings.TrimSpace(c.FormValue("email"))
	d := co.DetailsView{Name: name, Email: email}
	counter := s.atCounter(c) // a walk-in customer at the box office need not give either
	if name == "" && !counter {
		d.NameError = "Please enter your name."
	} else if utf8.RuneCountInString(name) > 100 {
		d.NameError = "Please shorten your name to 100 characters."
	}
	if email == "" && !counter {
		d.EmailError = "Please enter your e-mail address."
	} else if email != "" && !validEmail(email) {
		d.EmailError = "This does not look like an e-mail address. Please check it (for example name@example.com)."
	}
	if d.NameError != "" || d.EmailError != "" {
		return s.renderBuyDetails(c, http.StatusUnprocessableEntity, v, d)
	}
	v.Name, v.Email = name, email
	s.saveBuy(c, v)
	return s.redirect(c, s.url(RouteBuySummary))
}

// summaryForm is what the gift card and loyalty forms had typed, with their errors.
type summaryForm struct {
	GiftCard, GiftCardError string
	Loyalty, LoyaltyError   string
}

// showBuySummary is the last step: the order, what it costs, other payments and "Pay".
func (s *Server) showBuySummary(c echo.Context) error {
	var notice *components.Notice
	if msg := s.sessions.PopString(c.Request().Context(), sessBuyNotice); msg != "" {
		notice = &components.Notice{Kind: components.NoticeWarning, Heading: "Your payment was not completed", Body: msg}
	} else if msg := s.popFlash(c); msg != "" {
		notice = &components.Notice{Kind: components.NoticeSuccess, Heading: msg}
	}
	return s.renderBuySummary(c, http.StatusOK, notice, summaryForm{})
}

func (s *Server) renderBuySummary(c echo.Context, status int, notice *components.Notice, f summaryForm) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	if (v.Name == "" || v.Email == "") && !s.atCounter(c) {
		return s.redirect(c, s.url(RouteBuyDetails))
	}
	ctx := c.Request().Context()
	o, err := s.ticketing.GetOrder(ctx, v.UserSessionID)
	if err != nil {
		return s.buyEnded(c, v, err)
	}
	cin := s.cinemaByID(ctx, v.CinemaID)
	money := func(m cinema.Money) string { return m.Format(cin.Locale) }
	view := co.SummaryView{Session: s.buyHeader(ctx, v), CustomerName: v.Name, CustomerEmail: v.Email, Notice: notice,
		Countdown: s.buyCountdown(c, v, o), CSRFToken: csrfToken(c), PayURL: s.url(RouteBuyPay), GiftCardURL: s.url(RouteBuyGiftCard),
		LoyaltyURL: s.url(RouteBuyLoyalty), SeatsURL: s.url(RouteBuySeats), DetailsURL: s.url(RouteBuyDetails), CancelURL: s.url(RouteBuyCancel),
		GiftCard: f.GiftCard, GiftCardError: f.GiftCardError, Loyalty: f.Loyalty, LoyaltyError: f.LoyaltyError}
	sub := cinema.Money{Currency: o.Total.Currency}
	for _, t := range o.Tickets() {
		view.Tickets = append(view.Tickets, co.Line{Description: t.Description, Seat: seatWords(t.Seat), Amount: money(t.FinalPrice)})
		sub = sub.Add(t.FinalPrice)
	}
	view.Subtotal, view.Fees, view.Total = money(sub), money(o.BookingFee), money(o.Total)
	for _, a := range o.AppliedPayments {
		view.Applied = append(view.Applied, co.Line{Description: appliedLabel(a.Kind, a.MaskedCardNumber), Amount: money(a.Amount)})
	}
	toPay := o.ToPay()
	view.ToPay, view.NothingToPay = money(toPay), toPay.Cents <= 0
	view.PayLabel = "Pay " + money(toPay) + " securely"
	if view.NothingToPay {
		view.PayLabel = "Confirm booking"
	}
	if rec, busy := s.buyPaymentUnderWay(c, v); busy {
		view.UnderwayURL, view.StatusURL = rec.RedirectURL, s.url(RouteBuyReturn, rec.ID)
		view.UnderwayStat = fmt.Sprintf("A payment of %s was started at %s.", money(cinema.Money{Cents: rec.AmountCents, Currency: rec.Currency}), rec.Created.In(cin.Location()).Format("15:04"))
		if rec.RedirectURL == "" {
			view.UnderwayURL = view.StatusURL
		}
	}
	return s.render(c, status, "Check and pay", co.Summary(view))
}

func appliedLabel(kind, masked string) string {
	last := masked
	if len(last) > 4 {
		last = last[len(last)-4:]
	}
	switch strings.ToLower(kind) {
	case "giftcard", "gift_card":
		return "Gift card ending " + last
	case "loyalty":
		return "Loyalty points, card ending " + last
	}
	return kind + " " + masked
}

func digitsOnly(s string) string {
	return strings.NewReplacer(" ", "", "-", "").Replace(strings.TrimSpace(s))
}

func allDigits(s string, minLen, maxLen int) bool {
	if len(s) < minLen || len(s) > maxLen {
		return false
	}
	return strings.Trim(s, "0123456789") == ""
}

// applyGiftCard pays part of the order with a gift card (before the redirect payment).
func (s *Server) applyGiftCard(c echo.Context) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	card, pin := digitsOnly(c.FormValue("card")), strings.TrimSpace(c.FormValue("pin"))
	f := summaryForm{GiftCard: c.FormValue("card")}
	if !allDigits(card, 12, 19) {
		f.GiftCardError = "Please enter the gift card number: 12 to 19 digits, as printed on the card."
	} else if !allDigits(pin, 3, 8) {
		f.GiftCardError = "Please enter the card's PIN (digits only)."
	}
	if f.GiftCardError != "" {
		return s.renderBuySummary(c, http.StatusUnprocessableEntity, nil, f)
	}
	res, err := s.ticketing.ApplyGiftCard(c.Request().Context(), v.UserSessionID, card, pin, nil)
	switch {
	case errors.Is(err, upstream.ErrInsufficientBalance):
		f.GiftCardError = "There is no balance left on this gift card."
	case errors.Is(err, upstream.ErrPaymentDeclined):
		f.GiftCardError = "We could not use this gift card: the number or the PIN is wrong, or the card is for another currency."
	case errors.Is(err, upstream.ErrInvalidRequest):
		f.GiftCardError = "This gift card cannot be used for this order (there may be nothing left to pay)."
	case err != nil:
		return s.buyEnded(c, v, err)
	}
	if f.GiftCardError != "" {
		return s.renderBuySummary(c, http.StatusUnprocessableEntity, nil, f)
	}
	cin := s.cinemaByID(c.Request().Context(), v.CinemaID)
	s.flash(c, fmt.Sprintf("Gift card used: %s. Left to pay: %s.", res.Applied.Format(cin.Locale), res.ToPay.Format(cin.Locale)))
	return s.redirect(c, s.url(RouteBuySummary))
}

// applyLoyalty pays part of the order with loyalty points.
func (s *Server) applyLoyalty(c echo.Context) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	card := digitsOnly(c.FormValue("card"))
	f := summaryForm{Loyalty: c.FormValue("card")}
	if !allDigits(card, 8, 19) {
		f.LoyaltyError = "Please enter your loyalty card number: 8 to 19 digits."
		return s.renderBuySummary(c, http.StatusUnprocessableEntity, nil, f)
	}
	res, err := s.ticketing.ApplyLoyaltyPointsPayment(c.Request().Context(), v.UserSessionID, card, nil)
	var ue *upstream.Error
	switch {
	case errors.As(err, &ue) && ue.Result == 17:
		f.LoyaltyError = "We do not know this loyalty card number. Please check it."
	case errors.Is(err, upstream.ErrInsufficientBalance):
		f.LoyaltyError = "There are not enough points on this card."
	case errors.Is(err, upstream.ErrPaymentDeclined), errors.Is(err, upstream.ErrInvalidRequest):
		f.LoyaltyError = "Points from this card cannot be used for this order."
	case err != nil:
		return s.buyEnded(c, v, err)
	}
	if f.LoyaltyError != "" {
		return s.renderBuySummary(c, http.StatusUnprocessableEntity, nil, f)
	}
	cin := s.cinemaByID(c.Request().Context(), v.CinemaID)
	s.flash(c, fmt.Sprintf("Loyalty points used: %s. Left to pay: %s.", res.Applied.Format(cin.Locale), res.ToPay.Format(cin.Locale)))
	return s.redirect(c, s.url(RouteBuySummary))
}

// extendBuyHold gives the order a fresh lifetime and returns to the page it came from.
func (s *Server) extendBuyHold(c echo.Context) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	reset, err := s.ticketing.ResetOrderExpiry(c.Request().Context(), v.UserSessionID)
	if err != nil {
		return s.buyEnded(c, v, err)
	}
	s.holdExtended(c.Request().Context(), v.UserSessionID, reset) // it counts as long as it holds (holds.go)
	s.flash(c, "Your seats are held for longer now.")
	back := s.url(RouteBuySummary)
	if ref, err := url.Parse(c.Request().Referer()); err == nil {
		for _, r := range []string{RouteBuySeats, RouteBuyDetails} {
			if ref.Path == s.url(r) {
				back = ref.Path
			}
		}
	}
	return s.redirect(c, back)
}

// confirmCancelBuy asks before the purchase is cancelled and says what cancelling does.
func (s *Server) confirmCancelBuy(c echo.Context) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	if rec, busy := s.buyPaymentUnderWay(c, v); busy {
		return s.cancelRefusedWhilePaying(rec)
	}
	ctx := c.Request().Context()
	view := co.CancelView{Session: s.buyHeader(ctx, v), ActionURL: s.url(RouteBuyCancel), BackURL: s.url(RouteBuySummary), CSRFToken: csrfToken(c)}
	if o, err := s.ticketing.GetOrder(ctx, v.UserSessionID); err == nil {
		cin := s.cinemaByID(ctx, v.CinemaID)
		for _, t := range o.Tickets() {
			view.Tickets = append(view.Tickets, co.Line{Description: t.Description, Seat: seatWords(t.Seat), Amount: t.FinalPrice.Format(cin.Locale)})
		}
	}
	return s.render(c, http.StatusOK, "Cancel this purchase?", co.CancelConfirm(view))
}

func (s *Server) cancelRefusedWhilePaying(rec checkout.Record) error {
	return &Error{Code: EConflict, Heading: "Your payment has already started",
		Message: "This order cannot be cancelled here while its payment is under way. Cancel on the payment page, or see where the payment stands.",
		BackURL: s.url(RouteBuyReturn, rec.ID), BackLabel: "See the payment"}
}

// cancelBuy releases the seats and ends the purchase, once confirmed (confirm=yes; a form
// without it, say an old page, gets the question first). The next page says it was done.
func (s *Server) cancelBuy(c echo.Context) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "yes" {
		return s.confirmCancelBuy(c)
	}
	if rec, busy := s.buyPaymentUnderWay(c, v); busy {
		return s.cancelRefusedWhilePaying(rec)
	}
	err = s.ticketing.CancelOrder(c.Request().Context(), v.UserSessionID)
	if err != nil && !errors.Is(err, upstream.ErrNotFound) && !errors.Is(err, upstream.ErrOrderExpired) {
		return s.buyEnded(c, v, err)
	}
	s.endHoldFor(c.Request().Context(), v.UserSessionID, holds.ReasonCancelled)
	s.clearBuy(c)
	s.flash(c, "Your purchase was cancelled: your seats were released and nothing was charged.")
	return s.redirect(c, s.url(RouteWhatsOn)+"?"+url.Values{"cinema": {v.CinemaID}}.Encode())
}

// buyExpired is where the countdown sends the browser when the hold ends.
func (s *Server) buyExpired(c echo.Context) error {
	v, err := s.requireBuy(c)
	if err != nil {
		return err
	}
	o, err := s.ticketing.GetOrder(c.Request().Context(), v.UserSessionID)
	if err == nil && o.Expires.After(s.now()) {
		return s.redirect(c, s.url(RouteBuySummary)) // more time was given meanwhile
	}
	if err == nil {
		err = upstream.ErrOrderExpired
	}
	return s.buyEnded(c, v, err)
}
