package booking

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/views/components"
)

// actionApprovalRefused is the audit action of a refused refund approval.
const actionApprovalRefused = audit.ActionApprovalRefused

// editBalance reads what the edit in progress costs now.
func (h *Handler) editBalance(c echo.Context, e visit.Edit) (cinema.Money, error) {
	o, err := h.Ticketing.GetOrder(c.Request().Context(), e.UserSessionID)
	if err != nil {
		return cinema.Money{}, h.editEnded(c, e, err)
	}
	return o.Total, nil
}

func (h *Handler) editCounterView(c echo.Context, e visit.Edit, due cinema.Money) components.CounterPayView {
	l := web.Loc(c)
	return h.Visits.CounterPay(c, components.CounterPayView{What: l.T("staff.counter.edit_what", "Number", e.BookingNumber),
		ActionURL: h.Site.URL("edit.counterpay"), BackURL: h.Site.URL("edit.show"), BackLabel: l.T("staff.counter.back_to_change")}, due)
}

func (h *Handler) showEditCounterPay(c echo.Context) error {
	if e, ok := h.Visits.CurrentEdit(c); ok {
		if entry, asking := h.readerAsking(c, e); asking {
			if statusURL := h.leaveReader(c, e, entry); statusURL != "" {
				return web.Redirect(c, statusURL)
			}
		}
	}
	e, err := h.requireChangeableEdit(c)
	if err != nil {
		return err
	}
	due, err := h.editBalance(c, e)
	if err != nil {
		return err
	}
	if due.Cents <= 0 {
		return web.Redirect(c, h.Site.URL("edit.show"))
	}
	return h.Site.Render(c, http.StatusOK, web.Loc(c).T("staff.counter.title"), components.CounterPay(h.editCounterView(c, e, due)))
}

// takeEditCounterPay records a payment taken at the counter and completes the edit with it:
// a ledger entry (with the staff member and the tender) goes straight to paid, and the settler
// applies it with complete-edit as it does a provider's payment.
func (h *Handler) takeEditCounterPay(c echo.Context) error {
	user := h.Site.StaffUser(c) // CountersOnly
	e, err := h.requireChangeableEdit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	due, err := h.editBalance(c, e)
	if err != nil {
		return err
	}
	if due.Cents <= 0 {
		return web.Redirect(c, h.Site.URL("edit.show"))
	}
	st := h.Settler
	p, problem, err := h.Visits.ReadCounterPayment(c, due)
	if err == nil {
		p, problem, err = h.Visits.CheckCounterReference(c, st, p, settlement.ReferenceUse{Amount: due, CinemaID: e.CinemaID,
			BookingNumber: e.BookingNumber, EditSessionID: e.UserSessionID})
	}
	if err != nil {
		v, status := visit.CounterForm(h.editCounterView(c, e, due), p, problem, err)
		return h.Site.Render(c, status, web.Loc(c).T("staff.counter.title"), components.CounterPay(v))
	}
	lines, _ := editLinesIn(web.Loc(c), e, h.orderForSummary(c, e))
	e.Summary = changeSummary(lines)
	notice, _ := json.Marshal(visit.EditNotice(ctx, e, noticeLines(lines), cinema.Money{}, cinema.Money{}))
	change := settlement.Change{EditSessionID: e.UserSessionID, CinemaID: e.CinemaID, BookingID: e.BookingID, BookingNumber: e.BookingNumber,
		Notice: string(notice), Actor: user, AtBoxOffice: true}
	if p.Method == "reader" {
		return h.payOnReader(c, e, change, due, p.Tender)
	}
	entry, recorded, err := st.RecordCounterPayment(ctx, change, due, settlement.CounterPayment{Method: boxoffice.Tender(p.Method), Tender: p.Tender, Reference: p.Reference, CardType: p.CardType})
	if problem, ok := h.Visits.ReferenceRefusal(c, p, err); ok {
		v, status := visit.CounterForm(h.editCounterView(c, e, due), p, problem, visit.ErrBadCounterPayment)
		return h.Site.Render(c, status, web.Loc(c).T("staff.counter.title"), components.CounterPay(v))
	}
	if err != nil {
		return err
	}
	if recorded {
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionPayment, CinemaID: e.CinemaID, BookingNumber: e.BookingNumber,
			AmountCents: due.Cents, Currency: due.Currency, Detail: fmt.Sprintf("%s, reference %s, for a change to the booking", p.CardType, entry.ProviderReference)})
	}
	e.Entry = entry.ID
	h.Visits.SaveEdit(c, e)
	entry, err = st.Advance(ctx, entry.ID)
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("counter payment not applied yet", "entry", entry.ID, "err", err)
	}
	return h.afterSettle(c, e, entry)
}

// refundNeedsApproval reports a refund that needs a supervisor's approval: one above
// -refund-approval-above made by a signed-in staff member who is not an enabled supervisor,
// wherever they are signed in (a counter, an ordinary browser, a kiosk). The role is read from
// the account for this request. A supervisor's own refund needs none, nor does a customer's of
// their own view.
func (h *Handler) refundNeedsApproval(c echo.Context, refund cinema.Money) bool {
	user, supervisor := h.Site.StaffRole(c)
	return user != "" && !supervisor && refund.Cents > h.refundApprovalLimit()
}

func (h *Handler) refundApprovalLimit() int64 {
	return cmp.Or(h.Settings.RefundApprovalAbove, 5000)
}

// refundApproval checks a supervisor's approval of a clerk's refund above the limit, before
// any money moves. ok=true: go on (no approval needed, or approved and recorded); otherwise the
// approval page has been rendered (err is what the handler returns). The page is a plain form
// posting back to complete the edit, so it works without JavaScript on every device.
func (h *Handler) refundApproval(c echo.Context, e visit.Edit, refund cinema.Money) (ok bool, err error) {
	if !h.refundNeedsApproval(c, refund) {
		return true, nil
	}
	l := web.Loc(c)
	title := l.T("staff.approval.page_title")
	v := components.ApprovalView{Amount: l.Money(refund), Limit: l.Money(cinema.Money{Cents: h.refundApprovalLimit(), Currency: refund.Currency}),
		ActionURL: h.Site.URL("edit.complete"), BackURL: h.Site.URL("edit.show"), CSRFToken: web.CSRFToken(c),
		Approver: strings.TrimSpace(c.FormValue("approver")), Reason: strings.TrimSpace(c.FormValue("reason"))}
	if c.FormValue("approval") == "" {
		return false, h.Site.Render(c, http.StatusOK, title, components.Approval(v))
	}
	if v.Reason == "" {
		v.Error = l.T("staff.approval.reason_missing")
		return false, h.Site.Render(c, http.StatusUnprocessableEntity, title, components.Approval(v))
	}
	sup, aerr := h.Visits.ApproveBy(c.Request().Context(), v.Approver, c.FormValue("pin"))
	if aerr != nil {
		why := visit.ApprovalRefusalWhy(aerr)
		if why == "" {
			return false, aerr
		}
		v.Error = visit.ApprovalRefusal(l, aerr)
		h.Visits.RecordAudit(c, audit.Entry{Action: actionApprovalRefused, CinemaID: e.CinemaID, BookingNumber: e.BookingNumber,
			AmountCents: refund.Cents, Currency: refund.Currency, Reason: v.Reason, Detail: fmt.Sprintf("approver typed: %s (%s)", v.Approver, why)})
		return false, h.Site.Render(c, http.StatusForbidden, title, components.Approval(v))
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionApproval, Actor: sup.Username, CinemaID: e.CinemaID, BookingNumber: e.BookingNumber,
		AmountCents: refund.Cents, Currency: refund.Currency, Reason: v.Reason, Detail: "refund approved for " + h.Site.StaffUser(c)})
	return true, nil
}

// orderForSummary reads the edit order for the change summary; an empty order when it cannot be
// read (the summary then says only that the change is saved). Its tickets carry the visit's names.
func (h *Handler) orderForSummary(c echo.Context, e visit.Edit) cinema.Order {
	o, err := h.Ticketing.GetOrder(c.Request().Context(), e.UserSessionID)
	if err != nil {
		return cinema.Order{}
	}
	return h.Visits.Named(c.Request().Context()).Order(o)
}
