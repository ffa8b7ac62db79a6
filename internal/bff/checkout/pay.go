package checkout

import (
	"cmp"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

// snapshotOf is what the purchase's record keeps of order o: its tickets named in the visit's
// language, as the confirmation and its e-mail show them.
func (h *Handler) snapshotOf(ctx context.Context, v visit.Buy, o cinema.Order, paid *purchases.SnapshotPaid) string {
	o = h.Visits.Named(ctx).Order(o)
	sn := purchases.Snapshot{CinemaID: v.CinemaID, FilmTitle: v.FilmTitle, Showtime: v.Showtime, Screen: v.Screen, Lang: visit.NoticeLang(ctx),
		Fees: o.BookingFee.Cents, Total: o.Total.Cents, Currency: o.Total.Currency, Paid: paid}
	for _, t := range o.Tickets() {
		sn.Tickets = append(sn.Tickets, purchases.SnapshotLine{Description: t.Description, Seat: seatWords(i18n.FromContext(ctx), t.Seat), Cents: t.FinalPrice.Cents})
	}
	b, _ := json.Marshal(sn)
	return string(b)
}

// kioskWithoutReader answers Pay at a kiosk that has no card reader: a kiosk never sends its
// guest to a web payment page. One whose reader was moved to another terminal says where.
func (h *Handler) kioskWithoutReader(c echo.Context) error {
	l := web.Loc(c)
	body := l.T("checkout.kiosk_no_reader_text")
	if moved := h.Visits.ReaderMoved(c); moved != "" {
		body = moved + " " + l.T("checkout.kiosk_reader_moved_text")
	}
	return h.renderBuySummary(c, http.StatusServiceUnavailable, &components.Notice{Kind: components.NoticeError,
		Heading: l.T("checkout.kiosk_no_reader"), Body: body}, summaryForm{})
}

// startBuyPayment starts the redirect payment: the record first, then the upstream start, then
// the browser goes to the provider. A second press (double click, refresh, back, another tab)
// finds the payment under way and goes to the same provider page; it never starts another.
func (h *Handler) startBuyPayment(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	if h.Site.AtCounter(c) {
		return web.Redirect(c, h.Site.URL("buy.counterpay")) // terminal or cash; name and e-mail optional
	}
	onReader := web.IsKiosk(c) && h.Visits.HasReader(c) // the tickets print here: no name or e-mail needed
	if !onReader && (v.Name == "" || v.Email == "") {
		return web.Redirect(c, h.Site.URL("buy.details"))
	}
	ctx := c.Request().Context()
	if rec, busy := h.Visits.BuyPaymentUnderWay(c, v); busy {
		return h.continueOnReader(c, rec)
	}
	if web.IsKiosk(c) && !onReader {
		return h.kioskWithoutReader(c)
	}
	o, err := h.Ticketing.GetOrder(ctx, v.UserSessionID)
	if err != nil {
		return h.buyEnded(c, v, err)
	}
	toPay := o.ToPay()
	if onReader && toPay.Cents > 0 {
		return h.payBuyOnReader(c, v, o, toPay, cmp.Or(h.Settings.TenderTerminal, "CREDIT"), "")
	}
	rec, err := h.checkout().store.Create(ctx, purchases.Record{UserSessionID: v.UserSessionID, CinemaID: v.CinemaID, SessionID: v.SessionID,
		CustomerName: v.Name, CustomerEmail: v.Email, AmountCents: toPay.Cents, Currency: toPay.Currency, Summary: h.snapshotOf(ctx, v, o, nil)})
	if errors.Is(err, purchases.ErrActiveExists) {
		return h.continuePayment(c, rec)
	}
	if err != nil {
		return err
	}
	h.Visits.AddBuyRef(c, rec.ID)
	if toPay.Cents <= 0 {
		return h.completeWithoutRedirect(c, v, rec)
	}
	return h.payOnProviderPage(c, v, rec)
}

// payOnProviderPage starts the payment of the purchase rec at the upstream and sends the
// browser to the provider's page; the payment is watched from then on. The start, the read of
// its token and its record are one step that the browser giving up (a second press, a closed
// tab) does not cut off: a start left unrecorded would hold the purchase as "starting" and
// refuse every later press.
func (h *Handler) payOnProviderPage(c echo.Context, v visit.Buy, rec purchases.Record) error {
	ctx, cancel := h.Visits.Detached(c.Request().Context())
	defer cancel()
	st := h.checkout()
	// The hold must outlast the visit to the provider's page.
	if _, err := h.Ticketing.ResetOrderExpiry(ctx, v.UserSessionID); err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("reset expiry before payment", "err", err)
	}
	redirectURL, err := h.startExternalPayment(ctx, c, v, rec)
	if err != nil {
		return h.paymentStartFailed(ctx, c, v, rec, err)
	}
	// The expected token is known only from the upstream: read it now, before the browser
	// leaves, so the return can be checked against our own record.
	token := ""
	if d, err := h.Ticketing.GetOrderDetails(ctx, v.UserSessionID); err == nil && d.WebPayment != nil {
		token = d.WebPayment.Token
	}
	if _, err := st.store.MarkAwaiting(ctx, rec.ID, redirectURL, token); err != nil {
		return err
	}
	st.poller.Forget(v.UserSessionID) // what it knew was about an earlier attempt
	h.watchInBackground(rec)          // checked until known, even if the customer never comes back
	return c.Redirect(http.StatusSeeOther, redirectURL)
}

// startExternalPayment asks the upstream to start the payment and returns the provider's page
// (checked to be one the browser may be sent to). ctx is detached: the upstream starts taking
// money, never cut off halfway.
func (h *Handler) startExternalPayment(ctx context.Context, c echo.Context, v visit.Buy, rec purchases.Record) (string, error) {
	redirectURL, err := h.Ticketing.ExternalPaymentStarting(ctx, upstream.ExternalPaymentRequest{
		UserSessionID: v.UserSessionID, ReturnURL: h.Site.AbsURL("buy.return", rec.ID), PaymentMethod: h.PaymentMethod,
		InApp: web.IsKiosk(c), CustomerName: v.Name, CustomerEmail: v.Email,
		GeneratePrintStream: true, // PrintStreamType: the deployment's (-print-stream-type)
	})
	if err == nil && !web.SafeExternalURL(redirectURL) {
		err = fmt.Errorf("unusable PaymentRedirectUrl %q", redirectURL)
	}
	return redirectURL, err
}

// paymentStartFailed records (on ctx, the start's own) that the payment of rec did not start
// and says so: an order the upstream no longer holds has ended, anything else leaves the
// summary to try again.
func (h *Handler) paymentStartFailed(ctx context.Context, c echo.Context, v visit.Buy, rec purchases.Record, err error) error {
	if _, ferr := h.checkout().store.MarkStartFailed(ctx, rec.ID, err.Error()); ferr != nil {
		web.LoggerFrom(ctx, h.Logger).Error("record failed payment start", "err", ferr)
	}
	if errors.Is(err, upstream.ErrOrderExpired) || errors.Is(err, upstream.ErrNotFound) || errors.Is(err, upstream.ErrOrderClosed) {
		return h.buyEnded(c, v, err)
	}
	web.LoggerFrom(ctx, h.Logger).Warn("external payment not started", "err", err)
	l := web.Loc(c)
	return h.renderBuySummary(c, http.StatusServiceUnavailable, &components.Notice{Kind: components.NoticeError,
		Heading: l.T("checkout.payment_page_failed"), Body: l.T("checkout.payment_page_failed_text")}, summaryForm{})
}

// continuePayment sends a repeated "Pay" to the payment already under way.
func (h *Handler) continuePayment(c echo.Context, rec purchases.Record) error {
	ctx := c.Request().Context()
	h.Visits.AddBuyRef(c, rec.ID)
	// A start still being made by the first click: wait for it briefly.
	for i := 0; i < 50 && rec.State == purchases.StateStarting; i++ {
		time.Sleep(100 * time.Millisecond)
		next, err := h.checkout().store.Get(ctx, rec.ID)
		if err != nil {
			return err
		}
		rec = next
	}
	switch {
	case rec.State == purchases.StateAwaiting && rec.RedirectURL != "":
		return c.Redirect(http.StatusSeeOther, rec.RedirectURL)
	case rec.State == purchases.StateStarting:
		l := web.Loc(c)
		return &web.Error{Code: web.EConflict, Heading: l.T("checkout.payment_starting"), Message: l.T("checkout.payment_starting_text") + " " + l.T("checkout.not_charged_twice"),
			BackURL: h.Site.URL("buy.summary"), BackLabel: l.T("checkout.back_to_order")}
	}
	return web.Redirect(c, h.Site.URL("buy.summary"))
}

// completeWithoutRedirect books an order that gift cards or points paid in full.
func (h *Handler) completeWithoutRedirect(c echo.Context, v visit.Buy, rec purchases.Record) error {
	ctx := c.Request().Context()
	dctx, cancel := h.Visits.Detached(ctx) // the booking is made: never cut off halfway (visit/moneystep.go)
	defer cancel()
	d, err := h.Ticketing.CompleteOrder(dctx, upstream.CompleteOrderRequest{UserSessionID: v.UserSessionID, CustomerName: v.Name, CustomerEmail: v.Email,
		BookingMode: upstream.BookingModeSale, PerformPayment: true, GeneratePrintStream: true, ReturnPrintStream: true})
	if err != nil || !d.Completed {
		_, _ = h.checkout().store.MarkStartFailed(ctx, rec.ID, fmt.Sprint("complete order: ", err))
		if err == nil {
			l := web.Loc(c)
			err = &web.Error{Code: web.EUnavailable, Heading: l.T("checkout.complete_failed"), Message: l.T("checkout.complete_failed_text")}
		}
		return h.buyEnded(c, v, err)
	}
	if _, err := h.checkout().store.MarkCompleted(ctx, rec.ID, d.BookingNumber); err != nil {
		return err
	}
	return web.Redirect(c, h.Site.URL("buy.return", rec.ID))
}

// buyPaymentReturn is the ReturnUrl and the page that shows where the payment stands. A GET
// only; it trusts nothing in its parameters: the visit must have started the payment (the
// token on the way back is in the provider's page address, so holding it proves nothing), a
// token must match the one recorded for it, and the outcome is read from the upstream.
// Another browser gets PaymentElsewhere, which names nothing and changes nothing.
func (h *Handler) buyPaymentReturn(c echo.Context) error {
	ctx := c.Request().Context()
	rec, token, err := h.returningPurchase(c)
	if err != nil {
		return err
	}
	if rec.Returned.IsZero() || (token != "" && rec.VerifiedToken == "") {
		if next, err := h.checkout().store.MarkReturned(ctx, rec.ID, token); err == nil {
			rec = next
		}
	}
	self := h.Site.URL("buy.return", rec.ID)
	if token != "" {
		self += "?" + url.Values{"token": {token}}.Encode()
	}
	if done, err := h.answerRecorded(c, rec, self); done {
		return err
	}
	r := h.paymentNow(c, rec)
	if next, final := h.applyDetails(ctx, rec, r); final {
		return h.answerFinal(c, next, self)
	}
	elapsed := h.Now().Sub(rec.Returned)
	if elapsed >= GiveUpAfter {
		h.watchInBackground(rec)
		if web.IsHTMX(c) {
			return web.Redirect(c, self)
		}
		return h.showBuyFailed(c, rec, r, self)
	}
	return h.showConfirming(c, rec, r, token, elapsed)
}

// returningPurchase is the purchase a return is for, and the token it came back with: only one
// this visit started, and with a token only the one recorded for it. A return that is not
// gets the error to answer with.
func (h *Handler) returningPurchase(c echo.Context) (purchases.Record, string, error) {
	ctx := c.Request().Context()
	ref, token := c.Param("ref"), c.QueryParam("token")
	if len(ref) != 32 || len(token) > 512 || !slices.Contains(h.Visits.BuyRefs(c), ref) {
		return purchases.Record{}, "", h.Visits.PaymentElsewhere(c)
	}
	rec, err := h.checkout().store.Get(ctx, ref)
	if errors.Is(err, purchases.ErrNotFound) {
		return purchases.Record{}, "", h.Visits.PaymentElsewhere(c)
	}
	if err != nil {
		return purchases.Record{}, "", err
	}
	if token == "" {
		return rec, "", nil
	}
	ok, err := h.returnTokenMatches(c, rec, token)
	if err != nil {
		return purchases.Record{}, "", err
	}
	if !ok {
		web.LoggerFrom(ctx, h.Logger).Warn("payment return with a token that does not match", "ref", ref)
		l := web.Loc(c)
		return purchases.Record{}, "", &web.Error{Code: web.EForbidden, Heading: l.T("checkout.payment_link_invalid"), Message: l.T("checkout.payment_link_invalid_text"),
			BackURL: h.Site.URL("home"), BackLabel: l.T("checkout.back_to_start")}
	}
	return rec, token, nil
}

// returnTokenMatches reports whether token is the one of rec's payment: the one recorded, or,
// when none could be read at the start, the one the upstream names now. err is the answer when
// the upstream cannot say yet.
func (h *Handler) returnTokenMatches(c echo.Context, rec purchases.Record, token string) (bool, error) {
	if rec.TokenMatches(token) {
		return true, nil
	}
	if rec.ExpectedToken != "" || rec.VerifiedToken != "" || rec.State == purchases.StateStarting {
		return false, nil
	}
	// The token could not be read at the start: ask the upstream which it is.
	r := h.checkout().poller.Get(c.Request().Context(), rec.UserSessionID)
	if r.Err == nil && r.Details.WebPayment != nil && r.Details.WebPayment.Token != "" {
		return subtle.ConstantTimeCompare([]byte(r.Details.WebPayment.Token), []byte(token)) == 1, nil
	}
	if errors.Is(r.Err, upstream.ErrUnavailable) {
		// Slow or down: the token cannot be checked yet, which does not make it wrong.
		return false, h.Visits.FromUpstream(r.Err, h.Site.URL("home"), web.Loc(c).T("checkout.back_to_start"))
	}
	return false, nil
}

// answerRecorded answers a return whose purchase has an outcome on record already (self is
// the return page's own address); done is false while the payment is still awaited.
func (h *Handler) answerRecorded(c echo.Context, rec purchases.Record, self string) (done bool, err error) {
	switch rec.State {
	case purchases.StateCompleted:
		if web.IsHTMX(c) {
			return true, web.Redirect(c, self) // the whole page changes to the confirmation
		}
		return true, h.showBuyConfirmation(c, rec)
	case purchases.StateDeclined, purchases.StateCancelled, purchases.StateStartFailed:
		return true, h.buyPaymentEnded(c, rec)
	case purchases.StateGivenUp:
		if web.IsHTMX(c) {
			return true, web.Redirect(c, self)
		}
		return true, h.showBuyFailed(c, rec, purchases.Result{}, self)
	case purchases.StateStarting:
		return true, web.Redirect(c, h.Site.URL("buy.summary"))
	}
	return false, nil
}

// paymentNow reads where rec's payment stands at the upstream.
func (h *Handler) paymentNow(c echo.Context, rec purchases.Record) purchases.Result {
	ctx := c.Request().Context()
	st := h.checkout()
	r := st.poller.Get(ctx, rec.UserSessionID)
	if web.IsHTMX(c) && !r.Details.Completed && c.QueryParam(checkoutview.PollShownParam) == paymentShown(r) {
		// The page already shows this answer: wait (about one poll interval) for the next
		// read of the order, so a completion shows as soon as it is read.
		r = st.poller.Next(ctx, rec.UserSessionID, purchases.PollInterval+250*time.Millisecond)
	}
	return r
}

// answerFinal answers a return whose payment just reached its outcome: the confirmation, or
// the payment's end (a waiting page's poll reloads the whole page, self, to show it).
func (h *Handler) answerFinal(c echo.Context, rec purchases.Record, self string) error {
	if web.IsHTMX(c) {
		return web.Redirect(c, self)
	}
	if rec.State == purchases.StateCompleted {
		return h.showBuyConfirmation(c, rec)
	}
	return h.buyPaymentEnded(c, rec)
}

// showConfirming is the page that waits for the payment of rec, elapsed after the return, and
// the poll that keeps it up to date (new words only when they change).
func (h *Handler) showConfirming(c echo.Context, rec purchases.Record, r purchases.Result, token string, elapsed time.Duration) error {
	l := web.Loc(c)
	v := checkoutview.ConfirmingView{Heading: l.T("checkout.confirming_waiting"), Body: l.T("checkout.confirming_waiting_text"),
		Elapsed: int(elapsed / time.Second), Max: int(GiveUpAfter / time.Second), Reference: rec.Reference()}
	shown := paymentShown(r)
	switch shown {
	case "paid":
		v.Heading, v.Body = l.T("checkout.confirming_paid"), l.T("checkout.confirming_paid_text")
	case "checking":
		v.Body = l.T("checkout.confirming_checking_text")
	}
	// The poller says which words the page shows; new words go out only when they change.
	q := url.Values{checkoutview.PollShownParam: {shown}}
	if token != "" {
		q.Set("token", token)
	}
	v.PollURL = h.Site.URL("buy.return", rec.ID) + "?" + q.Encode()
	if web.IsHTMX(c) {
		return h.Site.Fragment(c, http.StatusOK, checkoutview.ConfirmingPoll(v, c.QueryParam(checkoutview.PollShownParam) != shown))
	}
	// A payment is in progress: the kiosk does not start over until this page gives up waiting.
	web.PauseIdleUntil(c, rec.Returned.Add(GiveUpAfter))
	return h.Site.Render(c, http.StatusOK, l.T("checkout.confirming_title"), checkoutview.Confirming(v))
}

// paymentShown names what the waiting page says for r: "waiting", "paid" (completing) or
// "checking" (the upstream did not answer).
func paymentShown(r purchases.Result) string {
	switch {
	case r.Err != nil:
		return "checking"
	case r.Details.WebPayment != nil && r.Details.WebPayment.Status == cinema.PaymentPaid:
		return "paid"
	}
	return "waiting"
}

// buyPaymentEnded: declined or cancelled at the provider (or never started). The visit that
// bought goes back to its summary with the same seats while the hold lives.
func (h *Handler) buyPaymentEnded(c echo.Context, rec purchases.Record) error {
	l := web.Loc(c)
	msg := l.T("checkout.payment_declined")
	if rec.State == purchases.StateCancelled {
		msg = l.T("checkout.payment_cancelled")
	}
	if v, ok := h.Visits.CurrentBuy(c); ok && v.UserSessionID == rec.UserSessionID {
		h.Sessions.Put(c.Request().Context(), visit.SessBuyNotice, msg+" "+l.T("checkout.payment_ended_still_held"))
		return web.Redirect(c, h.Site.URL("buy.summary"))
	}
	if web.IsHTMX(c) {
		return web.Redirect(c, h.Site.URL("buy.return", rec.ID))
	}
	return h.Site.Render(c, http.StatusOK, l.T("checkout.payment_ended_title"), checkoutview.Ended(checkoutview.EndedView{Heading: l.T("checkout.payment_not_completed"),
		Body: msg + " " + l.T("checkout.payment_ended_released"), NextURL: h.Site.URL("whatson"), Label: l.T("checkout.see_whatson")}))
}

// showBuyFailed is the failed-order path. It says only what is true now: while the order is
// still being checked, that we have no confirmation yet, keep checking, and that this page
// shows the outcome; once given up, that the order was cancelled and, about the money, only the
// operator's policy text. (Completed orders show the confirmation instead.)
func (h *Handler) showBuyFailed(c echo.Context, rec purchases.Record, r purchases.Result, self string) error {
	l := web.Loc(c)
	cin := h.Visits.CinemaByID(c.Request().Context(), rec.CinemaID)
	v := checkoutview.FailedView{Reference: rec.Reference(), CheckURL: self, HomeURL: h.Site.URL("home"),
		Amount: l.Money(cinema.Money{Cents: rec.AmountCents, Currency: rec.Currency})}
	if rec.State == purchases.StateGivenUp {
		v.GivenUp, v.Policy = true, h.failedOrderPolicyIn(l)
		v.Outcome = l.T("checkout.failed_waited", "Window", l.Duration(h.Settings.WatchOrdersFor()))
		if rec.OrderCancelled {
			v.Outcome += " " + l.T("checkout.failed_order_cancelled")
		} else {
			v.Outcome += " " + l.T("checkout.failed_no_booking")
		}
		return h.Site.Render(c, http.StatusOK, l.T("checkout.failed_page_title"), checkoutview.Failed(v))
	}
	v.PaymentState = l.T("checkout.unconfirmed_no_word")
	if r.Err == nil && r.Details.WebPayment != nil {
		switch r.Details.WebPayment.Status {
		case cinema.PaymentPaid:
			v.PaymentState = l.T("checkout.unconfirmed_paid")
		case cinema.PaymentPending:
			v.PaymentState = l.T("checkout.unconfirmed_pending")
		}
	}
	v.CheckingUntil = l.Time(h.watchDeadline(rec), cin.Location(), i18n.DateTimeShort)
	return h.Site.Render(c, http.StatusOK, l.T("checkout.unconfirmed_page_title"), checkoutview.Failed(v))
}

// showBuyConfirmation shows the booking from the upstream's order details and the snapshot
// taken when the payment started.
func (h *Handler) showBuyConfirmation(c echo.Context, rec purchases.Record) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
	var sn purchases.Snapshot
	_ = json.Unmarshal([]byte(rec.Summary), &sn)
	money := func(cents int64, cur string) string {
		return l.Money(cinema.Money{Cents: cents, Currency: cur})
	}
	v := checkoutview.ConfirmationView{BookingNumber: fmt.Sprint(rec.BookingNumber), Session: h.sessionHeader(ctx, rec.CinemaID, sn.FilmTitle, sn.Showtime, sn.Screen),
		CustomerName: rec.CustomerName, CustomerEmail: rec.CustomerEmail, Fees: money(sn.Fees, sn.Currency), Total: money(sn.Total, sn.Currency),
		Kiosk: web.IsKiosk(c), Counter: h.Site.AtCounter(c), Reference: rec.Reference(), HomeURL: h.Site.URL("home"), WhatsOnURL: h.Site.URL("whatson")}
	if !v.Kiosk && !v.Counter {
		v.CalendarURL = h.Site.URL("buy.calendar", rec.ID)
		if h.WalletLinks != nil && rec.BookingNumber != 0 {
			v.AppleWalletURL, v.GoogleWalletURL = h.WalletLinks(rec.CinemaID, rec.BookingNumber)
		}
	}
	for _, t := range sn.Tickets {
		v.Tickets = append(v.Tickets, checkoutview.Line{Description: t.Description, Seat: t.Seat, Amount: money(t.Cents, sn.Currency)})
	}
	v.DoneURL, v.CSRFToken = h.Site.URL("visit.reset"), web.CSRFToken(c)
	paidHere := h.paidAtDevice(ctx, l, rec, sn, &v)
	r := h.checkout().poller.Get(ctx, rec.UserSessionID)
	if r.Err == nil && r.Details.Completed {
		d := r.Details
		if wp := d.WebPayment; wp != nil && wp.Amount.Cents > 0 && !paidHere {
			v.Payments = append(v.Payments, checkoutview.Line{Description: l.T("checkout.card_payment"), Seat: visit.CardWords(l, wp.CardType, wp.CardNumberMasked), Amount: l.Money(wp.Amount)})
		}
		for _, a := range d.AdditionalPayments {
			v.Payments = append(v.Payments, checkoutview.Line{Description: additionalLabel(l, a.CardType), Seat: a.MaskedCardNumber, Amount: l.Money(a.Amount)})
		}
	} else if r.Err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("order details for the confirmation", "ref", rec.ID, "err", r.Err)
	}
	if b, err := h.Visits.ReadBooking(ctx, rec.CinemaID, rec.BookingNumber); err == nil {
		v.TicketCards = h.Visits.TicketsView(ctx, b, "")
		v.TicketCards.Staff = v.Counter
	} else {
		web.LoggerFrom(ctx, h.Logger).Warn("booking for the confirmation's tickets", "ref", rec.ID, "booking", rec.BookingNumber, "err", err)
	}
	if v.Counter {
		v.MailLine = h.Visits.CounterMailLine(ctx, "purchase:"+rec.ID)
	} else {
		v.MailLine = h.Visits.MailLine(ctx, "purchase:"+rec.ID)
	}
	if b, ok := h.Visits.CurrentBuy(c); ok && b.UserSessionID == rec.UserSessionID {
		h.clearBuy(c, b) // bought: the next visit to "what's on" starts afresh
		h.Sessions.Put(c.Request().Context(), visit.SessBuyDone, rec.ID)
	}
	return h.Site.Render(c, http.StatusOK, l.T("checkout.confirmation_page_title", "Number", v.BookingNumber), checkoutview.Confirmation(v))
}

// paidAtDevice adds to v what was taken at the counter or on a card reader (our own records:
// the purchase's snapshot, the ledger) and reports whether anything was.
func (h *Handler) paidAtDevice(ctx context.Context, l *i18n.Localizer, rec purchases.Record, sn purchases.Snapshot, v *checkoutview.ConfirmationView) bool {
	money := func(cents int64) string { return l.Money(cinema.Money{Cents: cents, Currency: rec.Currency}) }
	if p := sn.Paid; p != nil && rec.AmountCents > 0 {
		line := checkoutview.Line{Description: capitalized(visit.CardWords(l, p.Tender, "")), Amount: money(rec.AmountCents)}
		if p.Tender == "terminal" {
			line.Seat = p.Reference
		}
		v.Payments = append(v.Payments, line)
		if p.GivenCents > 0 {
			v.Given, v.Change = money(p.GivenCents), money(p.GivenCents-rec.AmountCents)
		}
		return true
	}
	if h.Ledger == nil {
		return false
	}
	entries, err := h.Ledger.ForEdit(ctx, rec.UserSessionID)
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("card-reader payment for the confirmation", "ref", rec.ID, "err", err)
		return false
	}
	found := false
	for _, e := range entries {
		if e.Kind == ledger.KindSale && e.State == ledger.StateApplied {
			v.Payments = append(v.Payments, checkoutview.Line{Description: l.T("checkout.card_on_reader"), Seat: visit.CardWords(l, e.CardType, e.CardMasked), Amount: money(e.AmountCents)})
			found = true
		}
	}
	return found
}

// capitalized is words with their first letter upper-cased: a tender named on its own line.
func capitalized(words string) string {
	r, n := utf8.DecodeRuneInString(words)
	if n == 0 {
		return words
	}
	return string(unicode.ToUpper(r)) + words[n:]
}

func additionalLabel(l *i18n.Localizer, cardType string) string {
	switch strings.ToUpper(cardType) {
	case "GIFTCARD":
		return l.T("checkout.gift_card")
	case "LOYALTY":
		return l.T("checkout.loyalty_points")
	}
	return cardType
}
