package staff

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/attention"
	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages"
)

// Staff's Needs attention list (/staff/attention): stuck orders, ledger entries waiting for
// review and refunds that keep failing, each with Retry or Mark resolved (a note is required).
// Every action is recorded with the staff member's username (internal/attention).

// attention returns the list's store and lister, or an error page (in l's words) when there is
// no database.
func (h *Handler) attention(l *i18n.Localizer) (*attention.Store, attention.Lister, error) {
	if h.Attention == nil {
		return nil, attention.Lister{}, &web.Error{Code: web.EUnavailable, Heading: l.T("staff.not_available"), Message: l.T("staff.attention.no_database")}
	}
	st := h.Attention
	lister := attention.Lister{Ledger: h.Ledger, Actions: st, Now: h.Now, StuckAfter: h.attentionAfter(), MinAttempts: attentionMinAttempts}
	if h.Watcher != nil {
		lister.Checkouts = h.Purchases
	}
	if h.Mail != nil {
		lister.Mail = h.Mail.Outbox
	}
	return st, lister, nil
}

// typedNote is what a refused resolve form had, shown again with its error.
type typedNote struct{ note, err string }

func attentionKey(kind attention.Kind, ref string) string { return string(kind) + "-" + ref }

func (h *Handler) showAttention(c echo.Context) error {
	var notice *components.Notice
	if msg := h.Site.PopFlash(c); msg != "" {
		notice = &components.Notice{Kind: components.NoticeInfo, Heading: msg}
	}
	return h.renderAttention(c, http.StatusOK, notice, nil)
}

func (h *Handler) renderAttention(c echo.Context, status int, notice *components.Notice, typed map[string]typedNote) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
	_, lister, err := h.attention(l)
	if err != nil {
		return err
	}
	items, err := lister.List(ctx)
	if err != nil {
		return err
	}
	_, supervisor := h.Site.StaffRole(c)
	v := pages.AttentionView{Notice: notice, CSRFToken: web.CSRFToken(c), StuckAfter: l.Duration(h.attentionAfter())}
	now := h.Now()
	for _, it := range items {
		zone := h.Visits.CinemaByID(ctx, it.CinemaID).Location()
		key := attentionKey(it.Kind, it.Ref)
		row := pages.AttentionItem{Key: key, Kind: string(it.Kind), Ref: it.Ref, Reference: it.Reference,
			Amount:   l.Money(cinema.Money{Cents: it.AmountCents, Currency: it.Currency}),
			Age:      ageWords(l, now.Sub(it.Since)),
			SinceISO: it.Since.UTC().Format(time.RFC3339), Since: l.Time(it.Since, zone, i18n.DateTimeShort),
			RetryURL:   h.Site.URL("staff.attention.retry", it.Kind, it.Ref),
			ResolveURL: h.Site.URL("staff.attention.resolve", it.Kind, it.Ref)}
		h.describeItem(l, &row, it, zone)
		row.NeedsApproval = it.Kind.Money() && !supervisor
		if a := it.Last; a != nil {
			row.LastAction = l.T("staff.attention.last_action", "Action", actionWords(l, a.Action), "Staff", a.Staff,
				"Time", l.Time(a.At, zone, i18n.DateTimeShort))
			if a.ApprovedBy != "" && a.ApprovedBy != a.Staff {
				row.LastAction += " " + l.T("staff.attention.approved_by", "Supervisor", a.ApprovedBy)
			}
			if a.Note != "" {
				row.LastAction += ": " + a.Note // the note is data, as it was written
			}
		}
		if t, ok := typed[key]; ok {
			row.Note, row.NoteError = t.note, t.err
		}
		v.Items = append(v.Items, row)
	}
	return h.Site.Render(c, status, l.T("staff.attention.title"), pages.Attention(v))
}

// describeItem says what the item is, in l's words for staff; times in the cinema's zone.
func (h *Handler) describeItem(l *i18n.Localizer, row *pages.AttentionItem, it attention.Item, zone *time.Location) {
	at := func(t time.Time) string { return l.Time(t, zone, i18n.DateTimeShort) }
	switch {
	case it.Checkout != nil:
		r := it.Checkout
		row.Details = append(row.Details, l.T("staff.attention.customer", "Name", r.CustomerName, "Email", r.CustomerEmail))
		if it.Reason == attention.ReasonGivenUp {
			row.Label = l.T("staff.attention.label_given_up")
			row.Details = append(row.Details, strings.TrimSpace(l.T("staff.attention.given_up_at", "Time", at(r.GivenUp), "Reason", r.GiveUpReason)))
			break
		}
		row.Label = l.T("staff.attention.label_not_confirmed")
		if r.Returned.IsZero() {
			row.Details = append(row.Details, l.T("staff.attention.started_not_back", "Time", at(r.Created)))
		} else {
			row.Details = append(row.Details, l.T("staff.attention.started_back", "Time", at(r.Created), "Back", at(r.Returned)))
		}
		row.Details = append(row.Details, l.T("staff.attention.watched_until", "Time", at(h.Watcher.Deadline(*r))))
	case it.Entry != nil:
		e := it.Entry
		review := it.Reason == attention.ReasonReview
		switch {
		case e.Kind == ledger.KindPayment && review:
			row.Label = l.T("staff.attention.label_payment_review")
		case e.Kind == ledger.KindPayment:
			row.Label = l.T("staff.attention.label_payment_failing")
		case review:
			row.Label = l.T("staff.attention.label_refund_review")
		default:
			row.Label = l.T("staff.attention.label_refund_failing")
		}
		row.Details = append(row.Details, l.N("staff.attention.entry_details", e.Attempts,
			"Number", e.BookingNumber, "Cinema", e.CinemaID, "State", ledgerStateWords(l, e.State)))
		if e.LastError != "" {
			row.Details = append(row.Details, l.T("staff.attention.last_error", "Error", e.LastError))
		}
		if e.State.Terminal(e.Kind) {
			row.RetryURL, row.RetryHint = "", l.T("staff.attention.retry_cannot_help")
		}
	case it.Mail != nil:
		m := it.Mail
		row.Label, row.Amount = l.T("staff.attention.label_mail"), "–"
		row.Details = append(row.Details, l.N("staff.attention.mail_details", m.Attempts, "Kind", m.Kind, "To", m.To, "Time", at(m.CreatedAt)))
		if m.LastError != "" {
			row.Details = append(row.Details, l.T("staff.attention.last_error", "Error", m.LastError))
		}
		row.Details = append(row.Details, l.T("staff.attention.mail_hint"))
	}
}

// actionWords is what was done to an item, in l's words (the stored code for one it does not know).
func actionWords(l *i18n.Localizer, a attention.ActionKind) string {
	switch a {
	case attention.ActionRetry:
		return l.T("staff.attention.action_retry")
	case attention.ActionResolve:
		return l.T("staff.attention.action_resolve")
	}
	return string(a)
}

// ledgerStateWords is a ledger entry's state in l's words (the stored code for one it does not
// know).
func ledgerStateWords(l *i18n.Localizer, st ledger.State) string {
	switch st {
	case ledger.StateCreated:
		return l.T("staff.ledger_state.created")
	case ledger.StateRedirected:
		return l.T("staff.ledger_state.redirected")
	case ledger.StatePaid:
		return l.T("staff.ledger_state.paid")
	case ledger.StateApplying:
		return l.T("staff.ledger_state.applying")
	case ledger.StateApplied:
		return l.T("staff.ledger_state.applied")
	case ledger.StateRefundRequested:
		return l.T("staff.ledger_state.refund_requested")
	case ledger.StateRefunded:
		return l.T("staff.ledger_state.refunded")
	case ledger.StateFailed:
		return l.T("staff.ledger_state.failed")
	}
	return string(st)
}

// ageWords is an age for a list, in l's words: "5 min", "2 h 5 min", "3 d 4 h".
func ageWords(l *i18n.Localizer, d time.Duration) string {
	if d < time.Minute {
		return l.T("staff.age.under_a_minute")
	}
	m := int(d / time.Minute)
	switch {
	case m < 60:
		return l.T("staff.age.minutes", "Minutes", m)
	case m < 24*60:
		return l.T("staff.age.hours", "Hours", m/60, "Minutes", m%60)
	}
	return l.T("staff.age.days", "Days", m/(24*60), "Hours", m%(24*60)/60)
}

// attentionItem reads the :kind/:ref of an action and finds the item; ok=false (with a flash
// and a redirect done) when it is not on the list any more.
func (h *Handler) attentionItem(c echo.Context) (it attention.Item, ok bool, err error) {
	l := web.Loc(c)
	kind, ref := attention.Kind(c.Param("kind")), c.Param("ref")
	if !kind.Valid() || ref == "" || len(ref) > 64 {
		return it, false, &web.Error{Code: web.ENotFound, Heading: l.T("staff.attention.no_such_heading"), Message: l.T("staff.attention.no_such_text"),
			BackURL: h.Site.URL("staff.attention"), BackLabel: l.T("staff.attention.title")}
	}
	st, lister, err := h.attention(l)
	if err != nil {
		return it, false, err
	}
	it, ok, err = lister.Find(c.Request().Context(), kind, ref)
	if err != nil || ok {
		return it, ok, err
	}
	msg := l.T("staff.attention.gone")
	if a, resolved, _ := st.Resolution(c.Request().Context(), kind, ref); resolved {
		msg = l.T("staff.attention.gone_resolved", "Staff", a.Staff)
	}
	h.Site.Flash(c, msg)
	return it, false, web.Redirect(c, h.Site.URL("staff.attention"))
}

// retryAttention is Retry: check a stuck order now, or advance a ledger entry with the
// settler. What came of it is recorded with the staff member's username and shown.
func (h *Handler) retryAttention(c echo.Context) error {
	user := h.Site.StaffUser(c) // StaffOnly
	it, ok, err := h.attentionItem(c)
	if !ok || err != nil {
		return err
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	// The outcome is recorded (the item's history, the log, the audit trail) in English and
	// shown to the person in their language; a ledger.State in kv is put into words in each.
	var outcome, shown string
	msg := func(id string, kv ...any) {
		say := func(in *i18n.Localizer) string {
			args := slices.Clone(kv)
			for i, a := range args {
				switch v := a.(type) {
				case ledger.State:
					args[i] = ledgerStateWords(in, v)
				case time.Time: // already in the cinema's time zone
					args[i] = in.Time(v, nil, i18n.DateTimeShort)
				}
			}
			return in.T(id, args...)
		}
		outcome, shown = say(h.Site.English()), say(l)
	}
	switch {
	case it.Checkout != nil:
		if h.Watcher == nil || h.Ticketing == nil {
			return &web.Error{Code: web.EUnavailable, Heading: l.T("staff.not_available"), Message: l.T("staff.attention.no_ticketing")}
		}
		_, id, kv := h.checkOrderNow(ctx, *it.Checkout)
		msg(id, kv...)
	case it.Entry != nil:
		if it.Entry.State.Terminal(it.Entry.Kind) {
			msg("staff.attention.outcome_ended", "State", it.Entry.State)
			break
		}
		if h.Payments == nil || h.Ticketing == nil {
			return &web.Error{Code: web.EUnavailable, Heading: l.T("staff.not_available"), Message: l.T("staff.attention.no_payments")}
		}
		e, aerr := h.Settler.Advance(ctx, it.Ref)
		if aerr != nil {
			msg("staff.attention.outcome_failed_again", "State", e.State, "Error", aerr.Error())
		} else {
			msg("staff.attention.outcome_now", "State", e.State)
		}
	case it.Mail != nil:
		if _, rerr := h.Mail.Outbox.Retry(ctx, it.Ref); rerr != nil {
			msg("staff.attention.outcome_not_queued", "Error", rerr.Error())
			break
		}
		if _, derr := h.Mail.DeliverOnce(ctx); derr != nil {
			msg("staff.attention.outcome_delivery_failed", "Error", derr.Error())
		} else if m, gerr := h.Mail.Outbox.Get(ctx, it.Ref); gerr == nil && m.State == mail.StateSent {
			msg("staff.attention.outcome_sent")
		} else {
			msg("staff.attention.outcome_queued")
		}
	}
	st, _, _ := h.attention(l)
	if _, err := st.Record(ctx, attention.Action{Kind: it.Kind, Ref: it.Ref, Action: attention.ActionRetry, Note: outcome, Staff: user}); err != nil {
		return err
	}
	web.LoggerFrom(ctx, h.Logger).Info("needs attention: retry", "staff", user, "kind", it.Kind, "ref", it.Ref, "outcome", outcome)
	h.Visits.RecordAudit(c, attentionAudit(audit.ActionAttentionRetry, it, outcome))
	h.Site.Flash(c, it.Reference+": "+shown)
	return web.Redirect(c, h.Site.URL("staff.attention"))
}

// resolveAttention is Mark resolved: a note is required; the item leaves the list. An item
// about money (a payment, a refund, an order that may have been paid) is resolved by a
// supervisor, or by a clerk with a supervisor's username and approval PIN typed in the form.
func (h *Handler) resolveAttention(c echo.Context) error {
	user, supervisor := h.Site.StaffRole(c) // StaffOnly
	note := strings.TrimSpace(c.FormValue("note"))
	it, ok, err := h.attentionItem(c)
	if !ok || err != nil {
		return err
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	refuse := func(status int, msg string) error {
		return h.renderAttention(c, status,
			&components.Notice{Kind: components.NoticeError, Heading: l.T("staff.attention.not_resolved", "Reference", it.Reference), Body: msg},
			map[string]typedNote{attentionKey(it.Kind, it.Ref): {note: note, err: msg}})
	}
	approvedBy := ""
	if it.Kind.Money() {
		approvedBy = user
		if !supervisor {
			if note == "" {
				return refuse(http.StatusUnprocessableEntity, l.T("staff.attention.note_required"))
			}
			approver := strings.TrimSpace(c.FormValue("approver"))
			sup, aerr := h.Visits.ApproveBy(ctx, approver, c.FormValue("pin"))
			if aerr != nil {
				why := visit.ApprovalRefusalWhy(aerr)
				if why == "" {
					return aerr
				}
				h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionApprovalRefused, Reason: note,
					Detail: fmt.Sprintf("resolving %s %s; approver typed: %s (%s)", it.Kind, it.Reference, approver, why)})
				msg := l.T("staff.attention.approval_needed")
				if approver != "" {
					msg = visit.ApprovalRefusal(l, aerr)
				}
				return refuse(http.StatusForbidden, msg)
			}
			approvedBy = sup.Username
			h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionApproval, Actor: sup.Username, Reason: note,
				Detail: fmt.Sprintf("resolving %s %s approved for %s", it.Kind, it.Reference, user)})
		}
	}
	st, _, _ := h.attention(l)
	a, err := st.Record(ctx, attention.Action{Kind: it.Kind, Ref: it.Ref, Action: attention.ActionResolve, Note: note, Staff: user, ApprovedBy: approvedBy})
	switch {
	case errors.Is(err, attention.ErrNoteRequired):
		return refuse(http.StatusUnprocessableEntity, l.T("staff.attention.note_required"))
	case errors.Is(err, attention.ErrNoteTooLong):
		return refuse(http.StatusUnprocessableEntity, l.T("staff.attention.note_too_long", "Max", attention.MaxNote))
	case errors.Is(err, attention.ErrAlreadyResolved):
		h.Site.Flash(c, l.T("staff.attention.already_resolved", "Reference", it.Reference, "Staff", a.Staff))
		return web.Redirect(c, h.Site.URL("staff.attention"))
	case err != nil:
		return err
	}
	web.LoggerFrom(ctx, h.Logger).Info("needs attention: resolved", "staff", user, "kind", it.Kind, "ref", it.Ref)
	h.Visits.RecordAudit(c, attentionAudit(audit.ActionAttentionSolved, it, note))
	h.Site.Flash(c, l.T("staff.attention.resolved", "Reference", it.Reference))
	return web.Redirect(c, h.Site.URL("staff.attention"))
}

// attentionAudit is the audit row of a Needs-attention action on it.
func attentionAudit(action string, it attention.Item, note string) audit.Entry {
	e := audit.Entry{Action: action, CinemaID: it.CinemaID, AmountCents: it.AmountCents, Currency: it.Currency,
		Reason: note, Detail: fmt.Sprintf("%s %s (%s)", it.Kind, it.Reference, it.Reason)}
	switch {
	case it.Checkout != nil:
		e.BookingNumber = it.Checkout.BookingNumber
	case it.Entry != nil:
		e.BookingNumber = it.Entry.BookingNumber
	}
	return e
}

// Needs attention's knobs.
var (
	// attentionMinAttempts: an unfinished ledger entry is on the list once it failed this often.
	attentionMinAttempts = 3
)

// checkOrderNow is staff's "Retry" on a stuck or given-up order (purchases.Watcher.CheckNow).
// It returns the record afterwards and what was found: a message id and its arguments, which
// the caller writes in the records' English and in the staff member's language.
func (h *Handler) checkOrderNow(ctx context.Context, rec purchases.Record) (purchases.Record, string, []any) {
	c := h.Watcher.CheckNow(ctx, rec)
	switch c.Found {
	case purchases.FoundCompleted:
		return c.Record, "checkout.check_completed", []any{"Number", c.Record.BookingNumber}
	case purchases.FoundDeclined:
		return c.Record, "checkout.check_declined", nil
	case purchases.FoundCancelled:
		return c.Record, "checkout.check_cancelled", nil
	case purchases.FoundGone:
		return c.Record, "checkout.check_gone", []any{"Error", c.Err.Error()}
	case purchases.FoundStillOpen:
		return c.Record, "checkout.check_still_open", nil
	case purchases.FoundUnreachable:
		if c.Record.State == purchases.StateGivenUp {
			return c.Record, "checkout.check_unreachable_given_up", []any{"Error", c.Err.Error()}
		}
		return c.Record, "checkout.check_unreachable", []any{"Error", c.Err.Error()}
	}
	return c.Record, "checkout.check_watching", []any{"Until", c.Until.In(h.Visits.CinemaByID(ctx, rec.CinemaID).Location())}
}

// DefaultAttentionAfter is how long an unconfirmed order waits before it is listed, unless the
// operator sets -attention-after.
const DefaultAttentionAfter = 10 * time.Minute

// attentionAfter is how long an order whose redirect payment is still unconfirmed waits before
// it is on the list (Config.AttentionAfter).
func (h *Handler) attentionAfter() time.Duration {
	if h.Settings.AttentionAfter > 0 {
		return h.Settings.AttentionAfter
	}
	return DefaultAttentionAfter
}
