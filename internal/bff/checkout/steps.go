package checkout

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/keypad"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/seatrules"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

// seatWords is how a seat is written for people: "Row F, seat 12", "Reihe F, Platz 12".
func seatWords(l *i18n.Localizer, r *cinema.SeatRef) string {
	if r == nil {
		return ""
	}
	return tickets.SeatWords(l, r.RowLabel, r.Label)
}

// showBuySeats shows the seat map with the order's seats ticked.
func (h *Handler) showBuySeats(c echo.Context) error {
	return h.renderBuySeats(c, http.StatusOK, nil, nil)
}

func (h *Handler) renderBuySeats(c echo.Context, status int, notice *components.Notice, chosen []cinema.SeatPosition) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	if _, busy := h.Visits.BuyPaymentUnderWay(c, v); busy {
		return web.Redirect(c, h.Site.URL("buy.summary"))
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	o, snap, err, planErr := h.Visits.OrderAndPlan(ctx, v.UserSessionID, v.CinemaID, v.SessionID)
	if err != nil {
		return h.buyEnded(c, v, err)
	}
	if planErr != nil {
		return h.Visits.FromUpstream(planErr, h.Site.URL("buy.summary"), l.T("checkout.back_to_order"))
	}
	plan := h.Visits.Named(ctx).SeatPlan(snap.Plan) // areas in the visitor's words
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
	label := "" // the map's own name, for a showing whose screen is not known
	if v.Screen != "" {
		label = l.T("checkout.seat_map_label", "Screen", v.Screen)
	}
	m := components.BuildSeatMap(plan, components.SeatMapOptions{ID: "buy-seats", Max: count, Yours: yours, YoursSelectable: true,
		Chosen: chosen, AreaCategories: cats, Kiosk: web.IsKiosk(c), Label: label, AsOf: h.Visits.SeatsAsOf(ctx, v.CinemaID, snap.AsOf),
		Prices: words.SeatPrices(l, o.Tickets())})
	defer m.Release() // the page is written before this returns
	view := checkoutview.SeatsView{Session: h.buyHeader(ctx, v), ActionURL: h.Site.URL("buy.seats"), BackURL: h.Site.URL("buy.session", v.CinemaID, v.SessionID),
		CSRFToken: web.CSRFToken(c), Count: count, Map: m, Notice: notice, Countdown: h.buyCountdown(c, v, o), Counter: h.Site.AtCounter(c)}
	h.learnFee(ctx, v.CinemaID, &o)
	if o.Total.Cents > 0 {
		view.Total = l.T("checkout.total_amount", "Amount", l.Money(o.Total))
	}
	return h.Site.Render(c, status, l.T("checkout.seats_title"), checkoutview.Seats(view))
}

// chooseBuySeats moves the order's tickets to the chosen seats (SetSelectedSeats); never while
// the order's payment is under way.
func (h *Handler) chooseBuySeats(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	if done, err := h.refuseChangeWhilePaying(c, v); done {
		return err
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	form, err := c.FormParams()
	if err != nil {
		return h.renderBuySeats(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: l.T("checkout.seats_unreadable"), Body: l.T("checkout.seats_choose_again")}, nil)
	}
	chosen, err := components.SeatValues(form["seat"])
	if err != nil {
		return h.renderBuySeats(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: l.T("checkout.seats_from_map")}, nil)
	}
	o, err := h.Ticketing.GetOrder(ctx, v.UserSessionID)
	if err != nil {
		return h.buyEnded(c, v, err)
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
		return h.renderBuySeats(c, http.StatusUnprocessableEntity, words.SeatCountNotice(web.Loc(c), len(chosen), want), chosen)
	}
	// Seat hoarding (holds.go): an order is never given more seats than a visit may hold.
	if done, err := h.Visits.RefuseVisitSeats(c, visit.SeatStepBuySeats, want, nil, h.Site.URL("buy.summary")); done {
		return err
	}
	if done, err := h.moveBuySeats(c, v, current, chosen); done {
		return err
	}
	if (v.Name == "" || v.Email == "") && !(web.IsKiosk(c) && h.Visits.HasReader(c)) {
		return web.Redirect(c, h.Site.URL("buy.details")) // a kiosk prints the tickets: no details needed
	}
	h.Site.Flash(c, l.T("checkout.seats_saved"))
	return web.Redirect(c, h.Site.URL("buy.summary"))
}

// moveBuySeats gives the order the chosen seats when they are not its seats now (current):
// the seating rules first, then the ticketing system. done is true when the answer is given
// (a refusal, or a card payment stopped in that instant).
func (h *Handler) moveBuySeats(c echo.Context, v visit.Buy, current map[cinema.SeatPosition]bool, chosen []cinema.SeatPosition) (done bool, err error) {
	same := true
	for _, p := range chosen {
		same = same && current[p]
	}
	if same {
		return false, nil
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	// The plan gives the chosen seats' areas (layout only): the upstream decides below
	// whether they are free.
	snap, err := h.SeatPlans.Plan(ctx, v.CinemaID, v.SessionID)
	if err != nil {
		return true, h.Visits.FromUpstream(err, h.Site.URL("buy.seats"), l.T("checkout.seats_title"))
	}
	plan := h.Visits.Named(ctx).SeatPlan(snap.Plan)
	var seats []upstream.SelectedSeat
	for _, p := range chosen {
		seat, found := plan.Seat(p)
		if !found {
			return true, h.renderBuySeats(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: l.T("checkout.seats_from_map")}, nil)
		}
		seats = append(seats, upstream.SelectedSeat{AreaCategoryCode: seat.AreaCategoryCode, Position: p})
	}
	// The cinema's own seating rules, which the upstream does not know: the order's seats
	// now are given up for the chosen ones.
	if notice := words.SeatRuleNotice(l, seatrules.Check(plan, seatrules.Choice{Party: slices.Collect(maps.Keys(current)), Chosen: chosen})); notice != nil {
		return true, h.renderBuySeats(c, http.StatusUnprocessableEntity, notice, chosen)
	}
	_, err = h.Ticketing.SetSelectedSeats(ctx, upstream.SetSelectedSeatsRequest{UserSessionID: v.UserSessionID, CinemaID: v.CinemaID, SessionID: v.SessionID, Seats: seats})
	h.SeatPlans.Invalidate(v.CinemaID, v.SessionID) // seats changed or refused: the next map reads them again
	switch {
	case errors.Is(err, upstream.ErrSeatsUnavailable):
		return true, h.renderBuySeats(c, http.StatusConflict, visit.SeatsTakenNotice, nil)
	case errors.Is(err, upstream.ErrInvalidRequest):
		return true, h.renderBuySeats(c, http.StatusConflict, &components.Notice{Kind: components.NoticeError, Heading: l.T("checkout.seats_unsuitable"),
			Body: l.T("checkout.seats_unsuitable_text")}, nil)
	case err != nil:
		return true, h.buyEnded(c, v, err)
	}
	switch readerURL, stopped := h.stopStaleSale(c, v); {
	case readerURL != "":
		return true, web.Redirect(c, readerURL) // a card paid in that instant: its page says what follows
	case stopped:
		h.Sessions.Put(ctx, visit.SessBuyNotice, l.T("checkout.reader_stopped_for_change"))
	}
	return false, nil
}

// showBuyDetails asks for the name and e-mail address.
func (h *Handler) showBuyDetails(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	return h.renderBuyDetails(c, http.StatusOK, v, checkoutview.DetailsView{Name: v.Name, Email: v.Email})
}

func (h *Handler) renderBuyDetails(c echo.Context, status int, v visit.Buy, d checkoutview.DetailsView) error {
	o, err := h.Ticketing.GetOrder(c.Request().Context(), v.UserSessionID)
	if err != nil {
		return h.buyEnded(c, v, err)
	}
	d.Session, d.ActionURL, d.BackURL, d.CSRFToken = h.buyHeader(c.Request().Context(), v), h.Site.URL("buy.details"), h.Site.URL("buy.seats"), web.CSRFToken(c)
	d.Countdown = h.buyCountdown(c, v, o)
	d.Counter = h.Site.AtCounter(c)
	if d.Kiosk = web.IsKiosk(c) && h.Visits.HasReader(c); d.Kiosk {
		d.BackURL = h.Site.URL("buy.summary")
	}
	title := web.Loc(c).T("checkout.details_title")
	if d.Counter {
		title = web.Loc(c).T("checkout.counter.details_title")
	}
	return h.Site.Render(c, status, title, checkoutview.Details(d))
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
func (h *Handler) saveBuyDetails(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	if web.IsKiosk(c) && h.Visits.HasReader(c) {
		return h.saveKioskDetails(c, v)
	}
	name := strings.Join(strings.Fields(c.FormValue("name")), " ")
	email := strings.TrimSpace(c.FormValue("email"))
	d := checkoutview.DetailsView{Name: name, Email: email}
	l := web.Loc(c)
	counter := h.Site.AtCounter(c) // a walk-in customer at the box office need not give either
	if name == "" && !counter {
		d.NameError = l.T("checkout.details_name_missing")
	} else if utf8.RuneCountInString(name) > 100 {
		d.NameError = l.T("checkout.details_name_long", "Max", 100)
	}
	if email == "" && !counter {
		d.EmailError = l.T("checkout.details_email_missing")
	} else if email != "" && !validEmail(email) {
		d.EmailError = l.T("checkout.details_email_invalid")
	}
	if d.NameError != "" || d.EmailError != "" {
		return h.renderBuyDetails(c, http.StatusUnprocessableEntity, v, d)
	}
	v.Name, v.Email = name, email
	h.Visits.SaveBuy(c, v)
	return web.Redirect(c, h.Site.URL("buy.summary"))
}

// saveKioskDetails is the kiosk's e-mail form: a key of the on-screen keyboard types (the page
// comes back with it), Skip keeps no address, and an address given must be one.
func (h *Handler) saveKioskDetails(c echo.Context, v visit.Buy) error {
	email := strings.TrimSpace(c.FormValue("email"))
	if key := c.FormValue("key"); key != "" {
		_, email = keypad.ApplyKey("", email, key)
		return h.renderBuyDetails(c, http.StatusOK, v, checkoutview.DetailsView{Email: email})
	}
	if c.FormValue("skip") != "" {
		email = ""
	}
	if email != "" && !validEmail(email) {
		return h.renderBuyDetails(c, http.StatusUnprocessableEntity, v, checkoutview.DetailsView{Email: email, EmailError: web.Loc(c).T("checkout.details_email_invalid")})
	}
	v.Email = email
	h.Visits.SaveBuy(c, v)
	return web.Redirect(c, h.Site.URL("buy.summary"))
}

// summaryForm is what the gift card and loyalty forms had typed, with their errors.
type summaryForm struct {
	GiftCard, GiftCardError string
	Loyalty, LoyaltyError   string
}

// showBuySummary is the last step: the order, what it costs, other payments and "Pay".
func (h *Handler) showBuySummary(c echo.Context) error {
	var notice *components.Notice
	left, readerURL := "", ""
	if v, ok := h.Visits.CurrentBuy(c); ok {
		left, readerURL = h.leaveReader(c, v)
	}
	if readerURL != "" {
		return web.Redirect(c, readerURL)
	}
	msg := h.Sessions.PopString(c.Request().Context(), visit.SessBuyNotice)
	if left != "" {
		msg = left // the reader just stopped: that is what became of the payment
	}
	if msg != "" {
		notice = &components.Notice{Kind: components.NoticeWarning, Heading: web.Loc(c).T("checkout.payment_not_completed"), Body: msg}
	} else if flash := h.Site.PopFlash(c); flash != "" {
		notice = &components.Notice{Kind: components.NoticeSuccess, Heading: flash}
	}
	return h.renderBuySummary(c, http.StatusOK, notice, summaryForm{})
}

func (h *Handler) renderBuySummary(c echo.Context, status int, notice *components.Notice, f summaryForm) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	onReader := web.IsKiosk(c) && h.Visits.HasReader(c)
	if (v.Name == "" || v.Email == "") && !h.Site.AtCounter(c) && !onReader {
		return web.Redirect(c, h.Site.URL("buy.details"))
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	o, err := h.Ticketing.GetOrder(ctx, v.UserSessionID)
	if err != nil {
		return h.buyEnded(c, v, err)
	}
	o = h.Visits.Named(ctx).Order(o) // tickets in the visitor's words
	cin := h.Visits.CinemaByID(ctx, v.CinemaID)
	money := l.Money
	view := checkoutview.SummaryView{Session: h.buyHeader(ctx, v), CustomerName: v.Name, CustomerEmail: v.Email, Notice: notice,
		Countdown: h.buyCountdown(c, v, o), CSRFToken: web.CSRFToken(c), PayURL: h.Site.URL("buy.pay"), GiftCardURL: h.Site.URL("buy.giftcard"),
		LoyaltyURL: h.Site.URL("buy.loyalty"), SeatsURL: h.Site.URL("buy.seats"), DetailsURL: h.Site.URL("buy.details"), CancelURL: h.Site.URL("buy.cancel"),
		GiftCard: f.GiftCard, GiftCardError: f.GiftCardError, Loyalty: f.Loyalty, LoyaltyError: f.LoyaltyError}
	sub := cinema.Money{Currency: o.Total.Currency}
	for _, t := range o.Tickets() {
		view.Tickets = append(view.Tickets, checkoutview.Line{Description: t.Description, Seat: seatWords(l, t.Seat), Amount: money(t.FinalPrice)})
		sub = sub.Add(t.FinalPrice)
	}
	view.Subtotal, view.Fees, view.Total = money(sub), money(o.BookingFee), money(o.Total)
	for _, a := range o.AppliedPayments {
		view.Applied = append(view.Applied, checkoutview.Line{Description: appliedLabel(l, a.Kind, a.MaskedCardNumber), Amount: money(a.Amount)})
	}
	toPay := o.ToPay()
	view.ToPay, view.NothingToPay = money(toPay), toPay.Cents <= 0
	view.PayLabel = l.T("checkout.pay_securely", "Amount", money(toPay))
	if view.Counter = h.Site.AtCounter(c); view.Counter {
		view.PayLabel = l.T("booking.counter.complete_pay", "Amount", money(toPay))
	}
	view.Kiosk = web.IsKiosk(c)
	if view.OnReader = onReader; onReader {
		view.PayLabel = l.T("checkout.kiosk_pay", "Amount", money(toPay))
	}
	if view.NothingToPay {
		view.PayLabel = l.T("checkout.confirm_booking")
	}
	view.Who, view.DetailsLabel = whoWords(l, v, view.Counter, onReader)
	if web.IsKiosk(c) && !onReader && !view.NothingToPay {
		// A kiosk never sends its guest to a web payment page: without its reader it cannot sell.
		view.CannotPay = true
		if view.Notice == nil {
			view.Notice = &components.Notice{Kind: components.NoticeError, Heading: l.T("checkout.kiosk_no_reader"), Body: l.T("checkout.kiosk_no_reader_text")}
		}
	}
	if rec, busy := h.Visits.BuyPaymentUnderWay(c, v); busy {
		view.UnderwayURL, view.StatusURL = rec.RedirectURL, h.Site.URL("buy.return", rec.ID)
		if e, ok := h.Visits.ReaderSaleUnderWay(ctx, v.UserSessionID); ok {
			view.StatusURL = h.Site.URL("buy.reader", e.ID)
		}
		view.UnderwayStat = l.T("checkout.underway_started", "Amount", money(cinema.Money{Cents: rec.AmountCents, Currency: rec.Currency}),
			"Time", l.Time(rec.Created, cin.Location(), i18n.Clock))
		if rec.RedirectURL == "" {
			view.UnderwayURL = view.StatusURL
		}
	}
	return h.Site.Render(c, status, l.T("checkout.summary_title"), checkoutview.Summary(view))
}

// whoWords says whom the tickets are for and where they go, when the buyer did not give both a
// name and an e-mail address (a walk-in at the counter, a guest at the kiosk), and the words of
// the link to add them; "" when the summary names both.
func whoWords(l *i18n.Localizer, v visit.Buy, counter, kiosk bool) (who, add string) {
	switch {
	case kiosk && v.Email != "":
		return l.T("checkout.who_kiosk_email", "Email", v.Email), l.T("checkout.change")
	case kiosk:
		return l.T("checkout.who_kiosk"), l.T("checkout.who_kiosk_add")
	case v.Name != "" && v.Email != "":
		return "", ""
	case v.Email != "":
		return l.T("checkout.who_email_print", "Email", v.Email), l.T("checkout.change")
	case v.Name != "":
		return l.T("checkout.who_name_print", "Name", v.Name), l.T("checkout.who_counter_add")
	case counter:
		return l.T("checkout.who_walk_in"), l.T("checkout.who_counter_add")
	}
	return "", ""
}

func appliedLabel(l *i18n.Localizer, kind, masked string) string {
	last := masked
	if len(last) > 4 {
		last = last[len(last)-4:]
	}
	switch strings.ToLower(kind) {
	case "giftcard", "gift_card":
		return l.T("checkout.applied_gift_card", "Last", last)
	case "loyalty":
		return l.T("checkout.applied_loyalty", "Last", last)
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

// storedValueCard is what differs between paying with a gift card and with loyalty points:
// the number's length, the words, where the form's message goes, and the ticketing operation.
type storedValueCard struct {
	kind                      storedValueKind
	minDigits                 int
	numberInvalid, pinInvalid string // message ids
	refused, used             string // message ids
	typed                     func(f *summaryForm, card, msg string)
	apply                     func(s *Handler, ctx context.Context, userSessionID, card, pin string) (upstream.AppliedPaymentResult, error)
}

var (
	giftCard = storedValueCard{kind: giftCardKind, minDigits: 12,
		numberInvalid: "checkout.gift_card_number_invalid", pinInvalid: "checkout.gift_card_pin_invalid",
		refused: "checkout.gift_card_refused", used: "checkout.gift_card_used",
		typed: func(f *summaryForm, card, msg string) { f.GiftCard, f.GiftCardError = card, msg },
		apply: func(s *Handler, ctx context.Context, id, card, pin string) (upstream.AppliedPaymentResult, error) {
			return s.Ticketing.ApplyGiftCard(ctx, id, card, pin, nil)
		}}
	// Loyalty points are spent only with the member's PIN: the ticketing system checks it, and
	// the card number alone spends nothing.
	loyaltyCard = storedValueCard{kind: loyaltyKind, minDigits: 8,
		numberInvalid: "checkout.loyalty_number_invalid", pinInvalid: "checkout.loyalty_pin_invalid",
		refused: "checkout.loyalty_refused", used: "checkout.loyalty_used",
		typed: func(f *summaryForm, card, msg string) { f.Loyalty, f.LoyaltyError = card, msg },
		apply: func(s *Handler, ctx context.Context, id, card, pin string) (upstream.AppliedPaymentResult, error) {
			return s.Ticketing.ApplyLoyaltyPointsPayment(ctx, id, card, pin, nil)
		}}
)

// applyGiftCard pays part of the order with a gift card (before the redirect payment).
func (h *Handler) applyGiftCard(c echo.Context) error { return h.applyStoredValue(c, giftCard) }

// applyLoyalty pays part of the order with loyalty points.
func (h *Handler) applyLoyalty(c echo.Context) error { return h.applyStoredValue(c, loyaltyCard) }

// applyStoredValue pays part of the order with a card's number and PIN. Every refusal reads
// the same (a wrong number, a wrong PIN, an empty card), refusals are limited per card number,
// client and visit (storedvalue.go), and the balance shows only after the right PIN.
func (h *Handler) applyStoredValue(c echo.Context, sv storedValueCard) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	if done, err := h.refuseChangeWhilePaying(c, v); done {
		return err // the amount being taken must stay the order's
	}
	l := web.Loc(c)
	typed := c.FormValue("card")
	card, pin := digitsOnly(typed), strings.TrimSpace(c.FormValue("pin"))
	var f summaryForm
	refuse := func(status int, msg string) error {
		sv.typed(&f, typed, msg)
		return h.renderBuySummary(c, status, nil, f)
	}
	if !allDigits(card, sv.minDigits, 19) {
		return refuse(http.StatusUnprocessableEntity, l.T(sv.numberInvalid, "Min", sv.minDigits, "Max", 19))
	}
	if !allDigits(pin, 3, 8) {
		return refuse(http.StatusUnprocessableEntity, l.T(sv.pinInvalid))
	}
	r, err := h.tryStoredValue(c, sv.kind, card, func(ctx context.Context) (upstream.AppliedPaymentResult, error) {
		return sv.apply(h, ctx, v.UserSessionID, card, pin)
	})
	switch {
	case err != nil:
		return err
	case r.Wait > 0:
		sv.typed(&f, typed, tooManyCardAttempts(l, r.Wait))
		return h.storedValueTooMany(c, r.Wait, f)
	case r.Failed != nil:
		return h.buyEnded(c, v, r.Failed)
	case r.Refused:
		return refuse(http.StatusUnprocessableEntity, l.T(sv.refused))
	}
	msg := l.T(sv.used, "Applied", l.Money(r.Applied.Applied), "ToPay", l.Money(r.Applied.ToPay))
	switch readerURL, stopped := h.stopStaleSale(c, v); {
	case readerURL != "":
		return web.Redirect(c, readerURL) // a card paid in that instant: its page says what follows
	case stopped:
		msg += " " + l.T("checkout.reader_stopped_for_change")
	}
	h.Site.Flash(c, msg)
	return web.Redirect(c, h.Site.URL("buy.summary"))
}

// extendBuyHold gives the order a fresh lifetime and returns to the page it came from.
func (h *Handler) extendBuyHold(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	reset, err := h.Ticketing.ResetOrderExpiry(c.Request().Context(), v.UserSessionID)
	if err != nil {
		return h.buyEnded(c, v, err)
	}
	h.Visits.HoldExtended(c.Request().Context(), v.UserSessionID, reset) // it counts as long as it holds (holds.go)
	h.Site.Flash(c, web.Loc(c).T("checkout.held_longer"))
	back := h.Site.URL("buy.summary")
	if ref, err := url.Parse(c.Request().Referer()); err == nil {
		for _, r := range []string{"buy.seats", "buy.details"} {
			if ref.Path == h.Site.URL(r) {
				back = ref.Path
			}
		}
	}
	return web.Redirect(c, back)
}

// confirmCancelBuy asks before the purchase is cancelled and says what cancelling does.
func (h *Handler) confirmCancelBuy(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	l := web.Loc(c)
	if rec, busy := h.Visits.BuyPaymentUnderWay(c, v); busy {
		return h.cancelRefusedWhilePaying(l, rec)
	}
	ctx := c.Request().Context()
	view := checkoutview.CancelView{Session: h.buyHeader(ctx, v), ActionURL: h.Site.URL("buy.cancel"), BackURL: h.Site.URL("buy.summary"), CSRFToken: web.CSRFToken(c)}
	if o, err := h.Ticketing.GetOrder(ctx, v.UserSessionID); err == nil {
		o = h.Visits.Named(ctx).Order(o)
		for _, t := range o.Tickets() {
			view.Tickets = append(view.Tickets, checkoutview.Line{Description: t.Description, Seat: seatWords(l, t.Seat), Amount: l.Money(t.FinalPrice)})
		}
	}
	return h.Site.Render(c, http.StatusOK, l.T("checkout.cancel_title"), checkoutview.CancelConfirm(view))
}

func (h *Handler) cancelRefusedWhilePaying(l *i18n.Localizer, rec purchases.Record) error {
	return &web.Error{Code: web.EConflict, Heading: l.T("checkout.payment_started"),
		Message: l.T("checkout.cancel_refused_paying"),
		BackURL: h.Site.URL("buy.return", rec.ID), BackLabel: l.T("checkout.see_payment")}
}

// cancelBuy releases the seats and ends the purchase, once confirmed (confirm=yes; a form
// without it, say an old page, gets the question first). The next page says it was done.
func (h *Handler) cancelBuy(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "yes" {
		return h.confirmCancelBuy(c)
	}
	if rec, busy := h.Visits.BuyPaymentUnderWay(c, v); busy {
		return h.cancelRefusedWhilePaying(web.Loc(c), rec)
	}
	err = h.Ticketing.CancelOrder(c.Request().Context(), v.UserSessionID)
	if err != nil && !errors.Is(err, upstream.ErrNotFound) && !errors.Is(err, upstream.ErrOrderExpired) {
		return h.buyEnded(c, v, err)
	}
	h.Visits.EndHoldFor(c.Request().Context(), v.UserSessionID, holds.ReasonCancelled)
	h.clearBuy(c, v)
	h.Site.Flash(c, web.Loc(c).T("checkout.cancelled"))
	return web.Redirect(c, h.Site.URL("whatson")+"?"+url.Values{"cinema": {v.CinemaID}}.Encode())
}

// buyExpired is where the countdown sends the browser when the hold ends.
func (h *Handler) buyExpired(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	o, err := h.Ticketing.GetOrder(c.Request().Context(), v.UserSessionID)
	if err == nil && o.Expires.After(h.Now()) {
		return web.Redirect(c, h.Site.URL("buy.summary")) // more time was given meanwhile
	}
	if err == nil {
		err = upstream.ErrOrderExpired
	}
	return h.buyEnded(c, v, err)
}
