package booking

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/bookingview"
)

// Refunds across several payments. A negative balance goes back over the booking's external
// payments, the newest first, never more than a payment can still give back (internal/refunds
// plans it). Every part is its own ledger entry with its own idempotency key and its own
// provider refund, made by the settler independently of the others: if one part fails, the
// others stay done and the reconciler retries the failing one. complete-edit is called once,
// with every part, when all of them are refunded; the parts move to "applying" together in one
// compare-and-set, so two parts finishing at the same moment call it once.

// startRefund plans the refund of amount over the booking's payments, one ledger entry per
// part (settlement.StartRefund), and makes them. A repeated press finds the same parts and
// never refunds twice.
func (h *Handler) startRefund(c echo.Context, e visit.Edit, change settlement.Change, amount cinema.Money) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
	b, err := h.Ticketing.GetSingleBooking(ctx, e.CinemaID, e.BookingNumber)
	if err != nil {
		return h.Visits.FromUpstream(err, h.Site.URL("edit.show"), l.T("booking.back_to_changes"))
	}
	group, err := h.Settler.StartRefund(ctx, change, amount, b)
	if errors.Is(err, settlement.ErrRefundAtBoxOffice) {
		return &web.Error{Code: web.EConflict, Heading: l.T("booking.refund_at_box_office_heading"), Message: l.T("booking.refund_at_box_office_text"),
			BackURL: h.Site.URL("edit.show"), BackLabel: l.T("booking.back_to_changes"), Err: err}
	}
	var notPlanned *settlement.RefundNotPlannedError
	if errors.As(err, &notPlanned) {
		return h.refundForReview(c, notPlanned, amount)
	}
	if err != nil {
		return err
	}
	lead := group[0]
	e.Entry = lead.ID
	h.Visits.SaveEdit(c, e)
	// A money step: never cut off halfway; a slow one goes on and the status page follows it.
	if err := h.Visits.AdvanceGroupWithin(ctx, lead); err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("refund not finished at once", "entry", lead.ID, "err", err)
	}
	if lead, err = h.Ledger.Get(ctx, lead.ID); err != nil {
		return err
	}
	lead = h.awaitApplying(ctx, lead) // a provider event may be completing it right now
	if lead.State == ledger.StateApplied {
		return h.finishEdit(c, e)
	}
	return web.Redirect(c, h.Site.URL("edit.status", lead.ID))
}

// refundForReview says that the refund cannot be made through the payment provider: nothing
// was refunded, the booking is as it was, and the refund waits under Needs attention (its
// reference named). A clerk reads what to do at the counter; a customer what happens next.
func (h *Handler) refundForReview(c echo.Context, e *settlement.RefundNotPlannedError, amount cinema.Money) error {
	l := web.Loc(c)
	ref := e.Review.ShortID()
	text := l.T("booking.refund_review_text", "Amount", l.Money(amount), "Reference", ref)
	if h.Site.StaffUser(c) != "" {
		text = l.T("booking.counter.refund_review_text", "Amount", l.Money(amount), "Reference", ref)
	}
	return &web.Error{Code: web.EConflict, Heading: l.T("booking.refund_review_heading"), Message: text,
		BackURL: h.Site.URL("edit.show"), BackLabel: l.T("booking.back_to_changes"), Err: e}
}

// refundCard names where a part goes back: "VISA ************4242", "PAYPAL", or the box
// office ("cash at the box office").
func refundCard(l *i18n.Localizer, p ledger.Entry) string {
	if p.AtBoxOffice() {
		if p.CardType == "Cash" {
			return l.T("booking.refund_to_cash")
		}
		return l.T("booking.refund_to_terminal")
	}
	if card := visit.CardWords(l, p.CardType, p.CardMasked); card != "" {
		return card
	}
	return l.T("booking.original_payment")
}

// refundPartText is one part of a refund in l's language: "€9.00 back to PAYPAL".
func refundPartText(l *i18n.Localizer, p ledger.Entry) string {
	return l.T("booking.refund_part", "Amount", l.Money(cinema.Money{Cents: p.AmountCents, Currency: p.Currency}), "Card", refundCard(l, p))
}

// refundSummary is the booking page's line for a refund that was applied, in l's language.
func refundSummary(l *i18n.Localizer, parts []ledger.Entry) string {
	total := l.Money(settlement.PartsTotal(parts))
	if len(parts) == 1 {
		return l.T("booking.refunded_to", "Amount", total, "Card", refundCard(l, parts[0]))
	}
	var each []string
	for _, p := range parts {
		each = append(each, refundPartText(l, p))
	}
	return l.T("booking.refunded_parts", "Amount", total, "Parts", strings.Join(each, ", "))
}

// counterForms are the forms a refund's status offers at a counter: the clerk confirms each
// part handed back there. The zero value offers none (a customer, the booking page).
type counterForms struct {
	atCounter bool
	csrf      string
}

// counterFormsFor are the status page's forms for this visit.
func (h *Handler) counterFormsFor(c echo.Context) counterForms {
	return counterForms{atCounter: h.Site.AtCounter(c), csrf: web.CSRFToken(c)}
}

// refundStatusView says where each part of a refund stands, in the language of ctx. It never
// says the money is back while a part is still under way or failing. A part that falls on money
// taken at the box office waits for the clerk to hand it back; at a counter (forms) each such
// part has its button.
func (h *Handler) refundStatusView(ctx context.Context, lead ledger.Entry, parts []ledger.Entry, forms counterForms) bookingview.PaymentStatusView {
	l := i18n.FromContext(ctx)
	v := bookingview.PaymentStatusView{Reference: lead.ShortID(), PollURL: h.Site.URL("edit.status", lead.ID), Refresh: true, Kind: components.NoticeInfo,
		CSRFToken: forms.csrf}
	var tally refundTally
	for _, p := range parts {
		v.Parts = append(v.Parts, h.refundPartView(l, p, forms, &tally))
	}
	h.refundOutcome(l, &v, parts, tally, forms.atCounter)
	return v
}

// refundTally counts where the parts of a refund stand.
type refundTally struct {
	sent, pending, notSent, applied, atBoxOffice int
	handBack                                     cinema.Money // the parts waiting to be handed back at the counter
	retrying                                     bool         // a part under way that the provider refused so far
	failed                                       bool         // a part failed
}

// refundPartView says where part p of a refund stands, and counts it in tally.
func (h *Handler) refundPartView(l *i18n.Localizer, p ledger.Entry, forms counterForms, tally *refundTally) bookingview.RefundPartView {
	pv := bookingview.RefundPartView{Text: refundPartText(l, p)}
	switch {
	case settlement.PartSent(p):
		tally.sent++
		pv.State, pv.Status = "done", l.T("booking.refund_part_sent")
	case p.State == ledger.StateFailed:
		tally.notSent++
		pv.State, pv.Status = "failed", l.T("booking.refund_part_not_sent")
	case p.AtBoxOffice() && p.State == ledger.StateCreated:
		tally.pending++
		tally.atBoxOffice++
		tally.handBack = cinema.Money{Cents: tally.handBack.Cents + p.AmountCents, Currency: p.Currency}
		pv.State, pv.Status = "box-office", l.T("booking.refund_part_at_box_office")
		if forms.atCounter {
			amount := l.Money(cinema.Money{Cents: p.AmountCents, Currency: p.Currency})
			pv.GiveBackURL, pv.GiveBackLabel = h.Site.URL("edit.giveback", p.ID), l.T("booking.give_back_terminal", "Amount", amount)
			if p.CardType == "Cash" {
				pv.GiveBackLabel = l.T("booking.give_back_cash", "Amount", amount)
			}
		}
	default:
		tally.pending++
		pv.State, pv.Status = "pending", l.T("booking.refund_part_pending")
		if p.LastError != "" {
			tally.retrying = true
			pv.Status = l.T("booking.refund_part_retrying")
		}
	}
	if p.State == ledger.StateApplied {
		tally.applied++
	}
	tally.failed = tally.failed || p.State == ledger.StateFailed
	return pv
}

// refundOutcome says where the refund as a whole stands, from its parts' tally.
func (h *Handler) refundOutcome(l *i18n.Localizer, v *bookingview.PaymentStatusView, parts []ledger.Entry, tally refundTally, atCounter bool) {
	total := l.Money(settlement.PartsTotal(parts))
	switch {
	case tally.applied == len(parts):
		v.Refresh = false
		v.Heading, v.Body = l.T("booking.refund_done"), l.T("booking.refund_done_text", "Amount", total)
		v.NextURL, v.NextLabel = h.Site.URL("booking.show"), l.T("booking.see_booking")
	case tally.failed && tally.pending == 0 && tally.sent > 0:
		v.Kind, v.Refresh = components.NoticeWarning, false
		v.Heading = l.T("booking.refund_sent_check")
		if tally.notSent > 0 {
			v.Heading = l.T("booking.refund_part_sent_check")
		}
		v.Body = l.T("booking.refund_sent_check_text")
		v.NextURL, v.NextLabel = h.Site.URL("booking.show"), l.T("booking.see_booking")
	case tally.failed && tally.pending == 0:
		v.Kind, v.Refresh = components.NoticeWarning, false
		v.Heading, v.Body = l.T("booking.refund_nothing"), l.T("booking.refund_nothing_text")
		v.NextURL, v.NextLabel = h.Site.URL("booking.show"), l.T("booking.see_booking")
	case tally.failed:
		v.Kind = components.NoticeWarning
		v.Heading, v.Body = l.T("booking.refund_part_failed"), l.T("booking.refund_part_failed_text", "Amount", total)
	case tally.pending > 0:
		refundPendingWords(l, v, parts, tally, atCounter)
	default: // every part sent back, the change being saved
		v.Heading, v.Body = l.T("booking.refund_sent", "Amount", total), l.T("booking.refund_sent_text")
	}
}

// refundPendingWords says that a refund is under way: to which card, whether the provider is
// being asked again, and what waits for the clerk at the box office.
func refundPendingWords(l *i18n.Localizer, v *bookingview.PaymentStatusView, parts []ledger.Entry, tally refundTally, atCounter bool) {
	total := l.Money(settlement.PartsTotal(parts))
	v.Heading = l.T("booking.refunding", "Amount", total)
	if len(parts) == 1 {
		v.Body = l.T("booking.refunding_text", "Amount", total, "Card", refundCard(l, parts[0]))
	} else {
		v.Body = l.N("booking.refunding_parts_text", len(parts), "Amount", total, "Sent", tally.sent)
	}
	if tally.retrying {
		v.Body += " " + l.T("booking.refund_provider_retrying")
	}
	if tally.atBoxOffice > 0 {
		v.Body += " " + l.N("booking.refund_hand_back_text", tally.atBoxOffice)
	}
	if tally.atBoxOffice > 0 && atCounter {
		// The clerk's words: what to do with the money, and that the change waits for it.
		v.Kind = components.NoticeWarning
		v.Heading, v.Body = l.T("booking.refund_counter_heading", "Amount", l.Money(tally.handBack)), l.N("booking.refund_counter_text", tally.atBoxOffice)
	}
}

// statusViewFor is statusView with the parts of a refund, and the counter's forms.
func (h *Handler) statusViewFor(c echo.Context, entry ledger.Entry) bookingview.PaymentStatusView {
	ctx := c.Request().Context()
	if entry.Kind != ledger.KindRefund {
		return h.statusView(ctx, entry)
	}
	parts, err := h.Ledger.Group(ctx, entry)
	if err != nil {
		parts = []ledger.Entry{entry}
	}
	return h.refundStatusView(ctx, entry, parts, h.counterFormsFor(c))
}

// giveBackAtCounter is the clerk's word that a part of the refund falling on money taken at
// the box office was handed back (cash from the till, or a refund on the card terminal): the
// part is refunded, and once every part is, the change is completed with all of them.
func (h *Handler) giveBackAtCounter(c echo.Context) error {
	user := h.Site.StaffUser(c) // CountersOnly
	part, e, ok, err := h.entryForVisit(c)
	if !ok {
		return err
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	status := h.Site.URL("edit.status", cmp.Or(e.Entry, part.ID))
	// A money step: renewing the edit and recording the hand-back are not cut off halfway.
	dctx, cancel := h.Visits.Detached(ctx)
	got, err := h.Settler.GiveBackAtBoxOffice(dctx, part.ID, user)
	cancel()
	switch {
	case errors.Is(err, settlement.ErrNotAtBoxOffice):
		return &web.Error{Code: web.EConflict, Heading: l.T("booking.give_back_not_here_heading"), Message: l.T("booking.give_back_not_here"),
			BackURL: status, BackLabel: l.T("booking.see_status"), Err: err}
	case err != nil:
		return h.Visits.FromUpstream(err, status, l.T("booking.see_status"))
	}
	if got.State == ledger.StateRefunded {
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionRefund, CinemaID: got.CinemaID, BookingNumber: got.BookingNumber,
			AmountCents: -got.AmountCents, Currency: got.Currency, Detail: fmt.Sprintf("handed back at the counter (%s), refund part %d", got.CardType, got.RefundPart)})
	}
	if err := h.Visits.AdvanceGroupWithin(ctx, got); err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("refund not finished yet", "entry", got.ID, "err", err)
	}
	return web.Redirect(c, status)
}

// sameRefund reports whether a and the entry with id b are parts of one refund.
func (h *Handler) sameRefund(ctx context.Context, a ledger.Entry, b string) bool {
	if a.RefundGroup == "" || b == "" {
		return false
	}
	other, err := h.Ledger.Get(ctx, b)
	return err == nil && other.RefundGroup == a.RefundGroup
}

// refundUnderWayNotice tells the booking page, while this visit's change of the booking has a
// refund under way, where each part of it stands; nil when there is none.
func (h *Handler) refundUnderWayNotice(c echo.Context, number int64) *components.Notice {
	e, ok := h.Visits.CurrentEdit(c)
	if !ok || e.BookingNumber != number || h.Ledger == nil {
		return nil
	}
	ctx := c.Request().Context()
	entry, err := h.Visits.BlockingEntry(ctx, e)
	if err != nil || entry == nil || entry.Kind != ledger.KindRefund {
		return nil
	}
	parts, err := h.Ledger.Group(ctx, *entry)
	if err != nil {
		return nil
	}
	v := h.refundStatusView(ctx, *entry, parts, counterForms{})
	var each []string
	for _, p := range v.Parts {
		each = append(each, p.Text+": "+p.Status)
	}
	return &components.Notice{Kind: v.Kind, Heading: v.Heading, Body: web.Loc(c).T("booking.refund_under_way", "Parts", strings.Join(each, "; "))}
}
