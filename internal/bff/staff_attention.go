package bff

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/attention"
	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages"
)

// Staff's Needs attention list (/staff/attention): stuck orders, ledger entries waiting for
// review and refunds that keep failing, each with Retry or Mark resolved (a note is required).
// Every action is recorded with the staff member's username (internal/attention).

// requireStaff returns the signed-in staff member's username; anyone else gets a 403 page that
// leads to the sign-in.
func (s *Server) requireStaff(c echo.Context) (string, error) {
	if loaded, _ := c.Get(ctxSessionLoaded).(bool); loaded {
		if u := s.sessions.GetString(c.Request().Context(), sessStaffUser); u != "" {
			return u, nil
		}
	}
	return "", &Error{Code: EForbidden, Heading: "For box-office staff only",
		Message: "This page is for the cinema's staff. Please sign in with your staff account.",
		BackURL: s.url(RouteStaffSignIn), BackLabel: "Staff sign-in"}
}

// attention returns the list's store and lister, or an error page when there is no database.
func (s *Server) attention() (*attention.Store, attention.Lister, error) {
	if s.sql == nil {
		return nil, attention.Lister{}, &Error{Code: EUnavailable, Heading: "Not available", Message: "The list needs the service's database."}
	}
	st := attention.New(s.sql, s.now)
	l := attention.Lister{Ledger: s.ledger, Actions: st, Now: s.now, StuckAfter: attentionStuckAfter, MinAttempts: attentionMinAttempts}
	if s.checkoutState != nil {
		l.Checkouts = s.checkout().store
	}
	if s.mail != nil {
		l.Mail = s.mail.outbox
	}
	return st, l, nil
}

// typedNote is what a refused resolve form had, shown again with its error.
type typedNote struct{ note, err string }

func attentionKey(kind attention.Kind, ref string) string { return string(kind) + "-" + ref }

func (s *Server) showAttention(c echo.Context) error {
	if _, err := s.requireStaff(c); err != nil {
		return err
	}
	var notice *components.Notice
	if msg := s.popFlash(c); msg != "" {
		notice = &components.Notice{Kind: components.NoticeInfo, Heading: msg}
	}
	return s.renderAttention(c, http.StatusOK, notice, nil)
}

func (s *Server) renderAttention(c echo.Context, status int, notice *components.Notice, typed map[string]typedNote) error {
	ctx := c.Request().Context()
	_, l, err := s.attention()
	if err != nil {
		return err
	}
	items, err := l.List(ctx)
	if err != nil {
		return err
	}
	v := pages.AttentionView{Notice: notice, CSRFToken: csrfToken(c),
		StuckText: "still unconfirmed " + watchWindowWords(attentionStuckAfter) + " after the payment started, or given up"}
	now := s.now()
	for _, it := range items {
		cin := s.cinemaByID(ctx, it.CinemaID)
		loc := cin.Location()
		key := attentionKey(it.Kind, it.Ref)
		row := pages.AttentionItem{Key: key, Kind: string(it.Kind), Ref: it.Ref, Reference: it.Reference,
			Amount:   cinema.Money{Cents: it.AmountCents, Currency: it.Currency}.Format(cin.Locale),
			Age:      ageWords(now.Sub(it.Since)),
			SinceISO: it.Since.UTC().Format(time.RFC3339), Since: it.Since.In(loc).Format("Mon 2 Jan 15:04"),
			RetryURL:   s.url(RouteStaffAttentionRetry, it.Kind, it.Ref),
			ResolveURL: s.url(RouteStaffAttentionResolve, it.Kind, it.Ref)}
		s.describeItem(&row, it, loc)
		if a := it.Last; a != nil {
			row.LastAction = fmt.Sprintf("Last action: %s by %s at %s", actionWords(a.Action), a.Staff, a.At.In(loc).Format("Mon 2 Jan 15:04"))
			if a.Note != "" {
				row.LastAction += ": " + a.Note
			}
		}
		if t, ok := typed[key]; ok {
			row.Note, row.NoteError = t.note, t.err
		}
		v.Items = append(v.Items, row)
	}
	return s.render(c, status, "Needs attention", pages.Attention(v))
}

// describeItem says what the item is, in words for staff.
func (s *Server) describeItem(row *pages.AttentionItem, it attention.Item, loc *time.Location) {
	at := func(t time.Time) string { return t.In(loc).Format("Mon 2 Jan 15:04") }
	switch {
	case it.Checkout != nil:
		r := it.Checkout
		row.Details = append(row.Details, "Customer: "+r.CustomerName+", "+r.CustomerEmail)
		if it.Reason == attention.ReasonGivenUp {
			row.Label = "Order given up"
			row.Details = append(row.Details, "Given up at "+at(r.GivenUp)+". "+r.GiveUpReason)
			break
		}
		row.Label = "Order not confirmed"
		if r.Returned.IsZero() {
			row.Details = append(row.Details, "Payment started at "+at(r.Created)+"; the customer has not come back from the payment page.")
		} else {
			row.Details = append(row.Details, "Payment started at "+at(r.Created)+"; back from the payment page at "+at(r.Returned)+".")
		}
		row.Details = append(row.Details, "Still being checked; given up (order cancelled) at "+at(s.watchDeadline(*r))+" if never confirmed.")
	case it.Entry != nil:
		e := it.Entry
		what := "Refund"
		if e.Kind == ledger.KindPayment {
			what = "Payment"
		}
		if it.Reason == attention.ReasonReview {
			row.Label = what + " needs review"
		} else {
			row.Label = what + " keeps failing"
		}
		row.Details = append(row.Details, fmt.Sprintf("Booking %d at cinema %s; state %s; %d failed attempts.", e.BookingNumber, e.CinemaID, e.State, e.Attempts))
		if e.LastError != "" {
			row.Details = append(row.Details, "Last error: "+e.LastError)
		}
		if e.State.Terminal(e.Kind) {
			row.RetryURL, row.RetryHint = "", "Retry cannot help: this entry has ended. Handle it, then mark it resolved."
		}
	case it.Mail != nil:
		m := it.Mail
		row.Label, row.Amount = "E-mail not delivered", "–"
		row.Details = append(row.Details, fmt.Sprintf("A %s message to %s, written at %s; %d attempts.", m.Kind, m.To, at(m.CreatedAt), m.Attempts))
		if m.LastError != "" {
			row.Details = append(row.Details, "Last error: "+m.LastError)
		}
		row.Details = append(row.Details, "Retry sends it again; or tell the customer another way, then mark it resolved.")
	}
}

func actionWords(a attention.ActionKind) string {
	if a == attention.ActionRetry {
		return "retried"
	}
	return string(a)
}

// ageWords is an age for a list: "5 min", "2 h 5 min", "3 d 4 h".
func ageWords(d time.Duration) string {
	if d < time.Minute {
		return "under a minute"
	}
	m := int(d / time.Minute)
	switch {
	case m < 60:
		return fmt.Sprintf("%d min", m)
	case m < 24*60:
		return fmt.Sprintf("%d h %d min", m/60, m%60)
	}
	return fmt.Sprintf("%d d %d h", m/(24*60), m%(24*60)/60)
}

// attentionItem reads the :kind/:ref of an action and finds the item; ok=false (with a flash
// and a redirect done) when it is not on the list any more.
func (s *Server) attentionItem(c echo.Context) (it attention.Item, ok bool, err error) {
	kind, ref := attention.Kind(c.Param("kind")), c.Param("ref")
	if !kind.Valid() || ref == "" || len(ref) > 64 {
		return it, false, &Error{Code: ENotFound, Heading: "No such item", Message: "There is nothing like that on the list.",
			BackURL: s.url(RouteStaffAttention), BackLabel: "Needs attention"}
	}
	_, l, err := s.attention()
	if err != nil {
		return it, false, err
	}
	it, ok, err = l.Find(c.Request().Context(), kind, ref)
	if err != nil || ok {
		return it, ok, err
	}
	st, _, _ := s.attention()
	msg := "That item no longer needs attention."
	if a, resolved, _ := st.Resolution(c.Request().Context(), kind, ref); resolved {
		msg = fmt.Sprintf("That item was already marked resolved by %s.", a.Staff)
	}
	s.flash(c, msg)
	return it, false, s.redirect(c, s.url(RouteStaffAttention))
}

// retryAttention is Retry: check a stuck order now, or advance a ledger entry with the
// settler. What came of it is recorded with the staff member's username and shown.
func (s *Server) retryAttention(c echo.Context) error {
	user, err := s.requireStaff(c)
	if err != nil {
		return err
	}
	it, ok, err := s.attentionItem(c)
	if !ok || err != nil {
		return err
	}
	ctx := c.Request().Context()
	var outcome string
	switch {
	case it.Checkout != nil:
		if s.checkoutState == nil || s.ticketing == nil {
			return &Error{Code: EUnavailable, Heading: "Not available", Message: "The ticketing system is not configured."}
		}
		_, outcome = s.checkOrderNow(ctx, *it.Checkout)
	case it.Entry != nil:
		if it.Entry.State.Terminal(it.Entry.Kind) {
			outcome = "Nothing to retry: this entry has ended (" + string(it.Entry.State) + ")."
			break
		}
		if s.payments == nil || s.ticketing == nil {
			return &Error{Code: EUnavailable, Heading: "Not available", Message: "The payment provider is not configured."}
		}
		e, aerr := s.settler().advance(ctx, it.Ref)
		if aerr != nil {
			outcome = fmt.Sprintf("Tried again; it failed again (state %s): %v", e.State, aerr)
		} else {
			outcome = fmt.Sprintf("Tried again; the entry is now %s.", e.State)
		}
	case it.Mail != nil:
		if _, rerr := s.mail.outbox.Retry(ctx, it.Ref); rerr != nil {
			outcome = fmt.Sprintf("Could not queue the e-mail again: %v", rerr)
			break
		}
		if _, derr := s.DeliverMail(ctx); derr != nil {
			outcome = fmt.Sprintf("Queued again; delivery failed just now (%v) and is tried again later.", derr)
		} else if m, gerr := s.mail.outbox.Get(ctx, it.Ref); gerr == nil && m.State == mail.StateSent {
			outcome = "Sent."
		} else {
			outcome = "Queued again; it is sent as soon as the mail server takes it."
		}
	}
	st, _, _ := s.attention()
	if _, err := st.Record(ctx, attention.Action{Kind: it.Kind, Ref: it.Ref, Action: attention.ActionRetry, Note: outcome, Staff: user}); err != nil {
		return err
	}
	loggerFrom(ctx, s.logger).Info("needs attention: retry", "staff", user, "kind", it.Kind, "ref", it.Ref, "outcome", outcome)
	s.recordAudit(c, attentionAudit(audit.ActionAttentionRetry, it, outcome))
	s.flash(c, it.Reference+": "+outcome)
	return s.redirect(c, s.url(RouteStaffAttention))
}

// resolveAttention is Mark resolved: a note is required; the item leaves the list.
func (s *Server) resolveAttention(c echo.Context) error {
	user, err := s.requireStaff(c)
	if err != nil {
		return err
	}
	note := strings.TrimSpace(c.FormValue("note"))
	it, ok, err := s.attentionItem(c)
	if !ok || err != nil {
		return err
	}
	ctx := c.Request().Context()
	st, _, _ := s.attention()
	a, err := st.Record(ctx, attention.Action{Kind: it.Kind, Ref: it.Ref, Action: attention.ActionResolve, Note: note, Staff: user})
	refuse := func(msg string) error {
		return s.renderAttention(c, http.StatusUnprocessableEntity,
			&components.Notice{Kind: components.NoticeError, Heading: "Not marked resolved: " + it.Reference, Body: msg},
			map[string]typedNote{attentionKey(it.Kind, it.Ref): {note: note, err: msg}})
	}
	switch {
	case errors.Is(err, attention.ErrNoteRequired):
		return refuse("Please write a note saying what was done; it is required to mark an item resolved.")
	case errors.Is(err, attention.ErrNoteTooLong):
		return refuse(fmt.Sprintf("Please shorten the note to %d characters.", attention.MaxNote))
	case errors.Is(err, attention.ErrAlreadyResolved):
		s.flash(c, fmt.Sprintf("%s was already marked resolved by %s.", it.Reference, a.Staff))
		return s.redirect(c, s.url(RouteStaffAttention))
	case err != nil:
		return err
	}
	loggerFrom(ctx, s.logger).Info("needs attention: resolved", "staff", user, "kind", it.Kind, "ref", it.Ref)
	s.recordAudit(c, attentionAudit(audit.ActionAttentionSolved, it, note))
	s.flash(c, "Marked resolved: "+it.Reference+".")
	return s.redirect(c, s.url(RouteStaffAttention))
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
