package checkout

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

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
