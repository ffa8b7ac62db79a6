package booking

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages/bookingview"
)

// payAtKiosk takes a kiosk's payment of balance on its own card reader, never on a web payment
// page; a kiosk whose reader was moved to another terminal says so and takes nothing. done is
// false where the kiosk has no part (not a kiosk, nothing to pay, no reader ever).
func (h *Handler) payAtKiosk(c echo.Context, e visit.Edit, change settlement.Change, balance cinema.Money) (done bool, err error) {
	if balance.Cents <= 0 || web.DeviceOf(c).Mode != device.Kiosk {
		return false, nil
	}
	if h.Visits.HasReader(c) {
		return true, h.payOnReader(c, e, change, balance, cmp.Or(h.Settings.TenderTerminal, "CREDIT"))
	}
	if moved := h.Visits.ReaderMoved(c); moved != "" {
		l := web.Loc(c)
		return true, &web.Error{Code: web.EUnavailable, Heading: l.T("checkout.kiosk_no_reader"), Message: moved + " " + l.T("checkout.kiosk_reader_moved_text"),
			BackURL: h.Site.URL("edit.show"), BackLabel: l.T("booking.back_to_changes")}
	}
	return false, nil
}

// editChange is the edit e as settlement knows it, with its notice and the staff member doing
// it; at an enrolled counter money taken at the box office can be handed back there.
func (h *Handler) editChange(c echo.Context, e visit.Edit, notice []byte) settlement.Change {
	return settlement.Change{EditSessionID: e.UserSessionID, CinemaID: e.CinemaID, BookingID: e.BookingID, BookingNumber: e.BookingNumber,
		Notice: string(notice), Actor: h.Site.StaffUser(c), AtBoxOffice: h.Site.AtCounter(c)}
}

// refuseWhilePaying is the answer to a change attempted while money is in motion.
func (h *Handler) refuseWhilePaying(c echo.Context, entry *ledger.Entry) error {
	l := web.Loc(c)
	return &web.Error{Code: web.EConflict, Heading: l.T("booking.paying_heading"), Message: l.T("booking.paying_text"),
		BackURL: h.Site.URL("edit.status", entry.ID), BackLabel: l.T("booking.see_status")}
}

// completeEdit finishes the edit: with nothing to pay, by taking a payment on the provider's
// page, or by refunding the difference. A double click, a refresh or a second tab finds the
// payment already started and never starts another.
func (h *Handler) completeEdit(c echo.Context) error {
	e, err := h.requireEdit(c)
	if err != nil {
		return err
	}
	if under, err := h.moneyUnderWay(c, e); under {
		return err
	}
	if err := h.refuseClosedEdit(c, e); err != nil { // money already in motion above goes on
		return err
	}
	d, err := h.readCompletion(c, e)
	if err != nil {
		return h.editEnded(c, e, err)
	}
	switch completionFor(d.edit.Paid, d.balance, h.Site.AtCounter(c)) {
	case completeWithoutMoney:
		return h.completeWithoutMoney(c, d)
	case completeAtCounter:
		return web.Redirect(c, h.Site.URL("edit.counterpay")) // terminal or cash, no provider page
	case completeWithRefund:
		return h.completeWithRefund(c, d)
	default:
		return h.completeWithPayment(c, d)
	}
}

// completion is how an edit is completed: what it needs of money, decided by completionFor.
type completion int

const (
	// completeWithoutMoney: nothing was paid before (any difference is settled at the
	// cinema), or the change costs nothing.
	completeWithoutMoney completion = iota
	// completeAtCounter: more to pay, taken at the counter (terminal or cash).
	completeAtCounter
	// completeWithRefund: less to pay than was paid; the difference goes back.
	completeWithRefund
	// completeWithPayment: more to pay, on a kiosk's card reader or the provider's page.
	completeWithPayment
)

// completionFor decides how an edit of a booking (paid before or not) that comes to balance is
// completed, at a counter or elsewhere.
func completionFor(paid bool, balance cinema.Money, atCounter bool) completion {
	switch {
	case !paid || balance.Cents == 0:
		return completeWithoutMoney
	case balance.Cents > 0 && atCounter:
		return completeAtCounter
	case balance.Cents < 0:
		return completeWithRefund
	}
	return completeWithPayment
}

// completing is an edit about to be completed: the edit with its change list, the e-mail
// that tells of it, and the balance its order comes to.
type completing struct {
	edit    visit.Edit
	notice  notify.Notice
	balance cinema.Money
}

// moneyUnderWay finds a payment or refund of the edit already under way (in the ledger, not
// only in this visit's session, which a parallel request does not see yet) and sends the
// person on to it: a payment page not yet paid opens again, anything else shows its status.
// under is false when there is none (err is then nil) and the edit may be completed.
func (h *Handler) moneyUnderWay(c echo.Context, e visit.Edit) (under bool, err error) {
	ctx := c.Request().Context()
	entry, err := h.Visits.BlockingEntry(ctx, e)
	if err != nil || entry == nil {
		return err != nil, err
	}
	if entry.Kind == ledger.KindPayment && (entry.State == ledger.StateCreated || entry.State == ledger.StateRedirected) {
		if next, _, err := h.Visits.AdvanceWithin(ctx, entry.ID); err == nil && next.State == ledger.StateRedirected && web.SafeExternalURL(next.HostedURL) {
			return true, c.Redirect(http.StatusSeeOther, next.HostedURL) // the same payment page again
		}
	}
	e.Entry = entry.ID
	h.Visits.SaveEdit(c, e)
	return true, web.Redirect(c, h.Site.URL("edit.status", entry.ID))
}

// readCompletion reads the edit's order as it stands and says what the edit changes: in the
// edit's change list and in its e-mail, naming the tickets and seats in the visitor's words.
func (h *Handler) readCompletion(c echo.Context, e visit.Edit) (completing, error) {
	ctx := c.Request().Context()
	o, err := h.Ticketing.GetOrder(ctx, e.UserSessionID)
	if err != nil {
		return completing{}, err
	}
	o = h.Visits.Named(ctx).Order(o)          // the change list and its e-mail name the tickets in the visit's words
	lines, _ := editLinesIn(web.Loc(c), e, o) // the message and the change record name seats in the visitor's words
	e.Summary = changeSummary(lines)
	notice := visit.EditNotice(ctx, e, noticeLines(lines), cinema.Money{}, cinema.Money{})
	return completing{edit: e, notice: notice, balance: o.Total}, nil
}

// completeWithoutMoney completes an edit that moves no money: the booking changes all the
// same, and a difference of a booking not paid before is settled at the cinema. The completion
// and its message are one step without the request (MoneyStep): a closed tab never leaves a
// saved change without its message, and a second press while it runs joins it.
func (h *Handler) completeWithoutMoney(c echo.Context, d completing) error {
	e, notice, balance := d.edit, d.notice, d.balance
	if !e.Paid && balance.Cents != 0 {
		e.Summary = append(e.Summary, visit.Change{What: visit.ChangeAtCinema, Amount: balance})
		notice.Money = append(notice.Money, notify.MoneyLine{What: notify.MoneyAtCinema, Amount: balance})
	}
	_, done, err := h.Visits.MoneyStep(c.Request().Context(), "complete-edit:"+e.UserSessionID, func(ctx context.Context) (any, error) {
		if _, err := h.Ticketing.CompleteEditBooking(ctx, e.UserSessionID, upstream.CompleteEditUnpaid()); err != nil {
			return nil, err
		}
		h.Visits.WriteNotice(ctx, notice)
		return nil, nil
	})
	if !done {
		return web.SlowUpstream(errStillSaving, h.Site.URL("booking.show"), web.Loc(c).T("booking.back_to_booking"))
	}
	if err != nil {
		return h.editEnded(c, e, err)
	}
	return h.finishEdit(c, e)
}

// errStillSaving: the completion went on past the page's wait; the booking shows its outcome.
var errStillSaving = errors.New("edit completion still running when the page answered")

// completeWithRefund gives the difference back, once a refund above the limit is approved.
func (h *Handler) completeWithRefund(c echo.Context, d completing) error {
	refund := d.balance.Abs()
	if ok, err := h.refundApproval(c, d.edit, refund); !ok {
		return err
	}
	// Split over the booking's payments, newest first: one ledger entry per part.
	return h.startRefund(c, d.edit, h.completionChange(c, d), refund)
}

// completeWithPayment takes the difference: on a kiosk's own card reader, else on the
// provider's payment page.
func (h *Handler) completeWithPayment(c echo.Context, d completing) error {
	change := h.completionChange(c, d)
	if done, err := h.payAtKiosk(c, d.edit, change, d.balance); done {
		return err
	}
	return h.payOnProviderPage(c, d.edit, change, d.balance)
}

// completionChange is the edit being completed as settlement knows it, with its e-mail.
func (h *Handler) completionChange(c echo.Context, d completing) settlement.Change {
	rawNotice, _ := json.Marshal(d.notice) // plain struct: cannot fail
	return h.editChange(c, d.edit, rawNotice)
}

// payOnProviderPage starts the payment of due in the ledger and sends the person to the
// provider's page for it.
func (h *Handler) payOnProviderPage(c echo.Context, e visit.Edit, change settlement.Change, due cinema.Money) error {
	ctx := c.Request().Context()
	entry, err := h.Settler.StartPayment(ctx, change, due.Abs())
	if err != nil {
		return err
	}
	e.Entry = entry.ID
	h.Visits.SaveEdit(c, e)

	// The hold must outlast the visit to the payment page.
	if _, err := h.Ticketing.ResetOrderExpiry(ctx, e.UserSessionID); err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("reset expiry before payment", "err", err)
	}
	next, done, err := h.Visits.AdvanceWithin(ctx, entry.ID)
	if !done {
		// The provider is still being asked for the payment, and the step goes on: the
		// payment may yet be made, so neither "nothing was charged" nor a failed entry.
		// The status page follows it and leads to the payment page once it is there.
		return web.Redirect(c, h.Site.URL("edit.status", entry.ID))
	}
	entry = next
	if err != nil || entry.State != ledger.StateRedirected {
		return h.paymentNotCreated(c, e, entry, err)
	}
	if !web.SafeExternalURL(entry.HostedURL) {
		return fmt.Errorf("payment provider gave an unusable page address %q", entry.HostedURL)
	}
	return c.Redirect(http.StatusSeeOther, entry.HostedURL)
}

// paymentNotCreated answers a payment the provider did not create: nothing was taken, the
// edit is kept for another try, and the page says why (an amount too small to pay by card).
func (h *Handler) paymentNotCreated(c echo.Context, e visit.Edit, entry ledger.Entry, err error) error {
	if entry.State == ledger.StateCreated {
		h.Settler.PaymentNotCreated(c.Request().Context(), entry.ID)
	}
	e.Entry = ""
	h.Visits.SaveEdit(c, e)
	l := web.Loc(c)
	if errors.Is(err, upstream.ErrAmountTooSmall) {
		return &web.Error{Code: web.EInvalid, Heading: l.T("booking.too_small_heading"),
			Message: l.T("booking.too_small_text", "Minimum", l.Money(cinema.Money{Cents: 50, Currency: entry.Currency}), "Amount", l.Money(cinema.Money{Cents: entry.AmountCents, Currency: entry.Currency})),
			BackURL: h.Site.URL("edit.show"), BackLabel: l.T("booking.back_to_changes"), Err: err}
	}
	return &web.Error{Code: web.EUnavailable, Heading: l.T("booking.pay_page_unavailable_heading"), Message: l.T("booking.pay_page_unavailable_text"),
		BackURL: h.Site.URL("edit.show"), BackLabel: l.T("booking.back_to_changes"), Err: err}
}

// changeSummary says what the edit changes, line by line.
func changeSummary(lines []bookingview.LineView) []visit.Change {
	var out []visit.Change
	for i := range lines {
		lv := &lines[i]
		switch lv.State {
		case "added", "removed", lineMoved:
			out = append(out, visit.Change{What: lv.State, Ticket: lv.Description, Seat: lineSeat(lv), From: lineFrom(lv)})
		}
	}
	if len(out) == 0 {
		out = append(out, visit.Change{What: visit.ChangeSaved})
	}
	return out
}

// changeWords says the changes in l's language, one sentence each.
func changeWords(l *i18n.Localizer, items []visit.Change) []string {
	var out []string
	for _, it := range items {
		ticket := it.Ticket
		if seat := it.Seat.Words(l); seat != "" && it.What != visit.ChangeMoved {
			ticket += " (" + seat + ")"
		}
		switch it.What {
		case visit.ChangeAdded:
			out = append(out, l.T("booking.change_added", "Ticket", ticket))
		case visit.ChangeRemoved:
			out = append(out, l.T("booking.change_removed", "Ticket", ticket))
		case visit.ChangeMoved:
			out = append(out, l.T("booking.change_moved", "Ticket", ticket, "From", it.From.Words(l), "Seat", it.Seat.Words(l)))
		case visit.ChangeAtCinema:
			out = append(out, l.T("booking.change_at_cinema", "Amount", words.Signed(l, it.Amount)))
		default:
			out = append(out, l.T("booking.change_saved"))
		}
	}
	return out
}

// finishEdit ends the edit in this visit and shows the booking, read again from the upstream,
// with what changed and what was paid or refunded. The audit trail gets the same in English.
func (h *Handler) finishEdit(c echo.Context, e visit.Edit) error {
	ctx := c.Request().Context()
	l, en := web.Loc(c), h.Site.English()
	shown, audited := changeWords(l, e.Summary), changeWords(en, e.Summary)
	if e.MovedFrom != nil {
		ci := h.Visits.CinemaByID(ctx, e.CinemaID)
		shown = append([]string{moveWords(l, e, ci)}, shown...)
		audited = append([]string{moveWords(en, e, ci)}, audited...)
	}
	if e.Entry != "" {
		if entry, err := h.Ledger.Get(ctx, e.Entry); err == nil {
			amount := cinema.Money{Cents: entry.AmountCents, Currency: entry.Currency}
			card, cardEn := visit.CardWords(l, entry.CardType, entry.CardMasked), visit.CardWords(en, entry.CardType, entry.CardMasked)
			if entry.Kind == ledger.KindPayment {
				shown = append(shown, l.T("booking.paid_by", "Amount", l.Money(amount), "Card", card))
				audited = append(audited, en.T("booking.paid_by", "Amount", en.Money(amount), "Card", cardEn))
			} else {
				parts := h.refundParts(ctx, entry) // every part, with its card
				shown = append(shown, refundSummary(l, parts))
				audited = append(audited, refundSummary(en, parts))
			}
		}
	}
	h.Visits.ClearEdit(c)
	h.Visits.RecordAudit(c, editAudit(ctx, h, e, audited))
	h.Sessions.Put(ctx, visit.SessChanges, strings.Join(shown, "\n"))
	h.Visits.RememberMail(ctx, visit.EditNoticeKey(e.UserSessionID))
	if web.IsKiosk(c) {
		// The kiosk prints the booking's tickets as they are now; Done ends the visit.
		h.Sessions.Put(ctx, sessKioskPrint, ledger.NewID())
		return web.Redirect(c, h.Site.URL("booking.tickets"))
	}
	return web.Redirect(c, h.Site.URL("booking.show"))
}

// sessKioskPrint marks a kiosk's change just saved: its tickets' page prints them once (the
// value keys that print) and says what changed.
const sessKioskPrint = "kiosk.print"

// editAudit is the audit row of a completed edit: what changed, and the money of its ledger
// entry (a refund counts negative).
func editAudit(ctx context.Context, s *Handler, e visit.Edit, summary []string) audit.Entry {
	a := audit.Entry{Action: audit.ActionEdit, CinemaID: e.CinemaID, BookingNumber: e.BookingNumber, Detail: strings.Join(summary, "; ")}
	if e.Entry == "" {
		return a
	}
	entry, err := s.Ledger.Get(ctx, e.Entry)
	if err != nil {
		return a
	}
	a.AmountCents, a.Currency = entry.AmountCents, entry.Currency
	if entry.Kind == ledger.KindRefund {
		a.Action = audit.ActionRefund
		a.AmountCents = -settlement.PartsTotal(s.refundParts(ctx, entry)).Cents
	}
	return a
}

// refundParts is the entry's refund parts (itself alone when they cannot be read).
func (h *Handler) refundParts(ctx context.Context, e ledger.Entry) []ledger.Entry {
	if parts, err := h.Ledger.Group(ctx, e); err == nil && len(parts) > 0 {
		return parts
	}
	return []ledger.Entry{e}
}
