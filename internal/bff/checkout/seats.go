package checkout

import (
	"errors"
	"maps"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
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
