package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"
)

func editRefusal(reason, msg string) *apiError {
	return &apiError{status: http.StatusBadRequest, result: resInvalidRequest, ext: extEditRefused, reason: reason, msg: msg}
}

var errBookingNotFound = &apiError{status: http.StatusNotFound, result: resUnexpected, ext: extBookingNotFound, reason: "not_found", msg: "booking not found"}

func newSessionID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail (Go 1.24+)
	return hex.EncodeToString(b)
}

// startedSession is a session of the booking that has begun at now, or nil.
func (b *booking) startedSession(now time.Time) *session {
	for _, t := range b.tickets {
		if !now.Before(t.sess.showtime) {
			return t.sess
		}
	}
	return nil
}

// sessionStartedText explains a refusal for a session that has begun.
func sessionStartedText(ss *session, what string) string {
	return fmt.Sprintf("session %d started at %s (%s); %s", ss.id, ss.showtime.In(ss.cinema.loc).Format("2006-01-02 15:04"), ss.cinema.TimeZone, what)
}

// editRestriction is the first edit restriction (contract 1.3) a booking
// breaks, or nil.
func editRestriction(b *booking) *apiError {
	if len(b.concessions) > 0 {
		return editRefusal("concessions", "the booking contains concessions; only bookings with tickets alone can be edited")
	}
	for _, p := range b.payments {
		if !p.external {
			return editRefusal("non_external_payment", "the booking was paid through the service's own payment processing; only external payments can be edited")
		}
	}
	for _, t := range b.tickets {
		switch {
		case t.tt.PackageSize > 1:
			return editRefusal("package_ticket", "the booking contains a package ticket ("+t.tt.Description+")")
		case t.tt.IsLoyaltyRecognition:
			return editRefusal("loyalty_ticket", "the booking contains a loyalty recognition ticket ("+t.tt.Description+")")
		case t.tt.IsVoucher:
			return editRefusal("voucher_ticket", "the booking contains a voucher ticket ("+t.tt.Description+")")
		case t.tt.IsThirdPartyMember:
			return editRefusal("third_party_member_ticket", "the booking contains a third-party member ticket ("+t.tt.Description+")")
		}
	}
	return nil
}

// errOtherSessionText is the refusal of tickets for another session in an edit
// when the sandbox plays a deployment without showtime changes
// (Server.SetEditsStayInSession).
const errOtherSessionText = "tickets of another session cannot be added while editing a booking"

// editSessionRefusal is why tickets for ss may not be added to an edit of b,
// or nil: the session has started, or it is not one of the booking's own
// while edits stay in session. s.mu must be held.
func (s *Server) editSessionRefusal(b *booking, ss *session, now time.Time) *apiError {
	if !now.Before(ss.showtime) {
		return editRefusal("session_started", sessionStartedText(ss, "tickets for it cannot be added to a booking"))
	}
	if !s.editsStay.Load() {
		return nil
	}
	for _, t := range b.tickets {
		if t.sess == ss {
			return nil
		}
	}
	return editRefusal("other_session", fmt.Sprintf("%s (session %d; the booking holds session %d)", errOtherSessionText, ss.id, b.tickets[0].sess.id))
}

type editBookingReply struct {
	Result             int             `json:"result"`
	ExtendedResultCode int             `json:"extendedResultCode"`
	ErrorDescription   *string         `json:"errorDescription"`
	Order              editOrderJSON   `json:"order"`
	SuggestedDeals     []dealCamelJSON `json:"suggestedDeals"`
}

// handleEditBooking puts a booking in edit state: a new order holding the
// booking's tickets as "booked", with fees recalculated under the current
// rule (contract 4.1, 4.11).
func (s *Server) handleEditBooking(r *http.Request) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	s.sweep(now)
	b, ok := s.bookings[r.PathValue("bookingId")]
	if !ok || b.cinema.ID != r.PathValue("cinemaId") {
		return errReply(famEdit, errBookingNotFound)
	}
	if ss := b.startedSession(now); ss != nil {
		return errReply(famEdit, editRefusal("session_started", sessionStartedText(ss, "a booking cannot be edited once its session has started")))
	}
	if b.edit != nil {
		return errReply(famEdit, editRefusal("already_in_edit", "the booking already has a live edit ("+b.edit.id+"); complete or cancel it first"))
	}
	if e := editRestriction(b); e != nil {
		return errReply(famEdit, e)
	}
	id := newSessionID()
	for s.orders[id] != nil || s.finished[id] {
		id = newSessionID()
	}
	s.nextHistory++
	o := &order{id: id, cinema: b.cinema, history: s.nextHistory, created: now, updated: now, expiry: now.Add(orderLifetime), state: orderActive, edit: b}
	for _, bt := range b.tickets {
		o.nextTicket++
		o.tickets = append(o.tickets, &ticket{id: o.nextTicket, sess: bt.sess, tt: bt.tt, seat: bt.seat, pkg: bt.pkg, status: statusBooked,
			price: bt.price, tax: bt.tax, seq: bt.seq, origSeat: bt.seat, origFee: bt.fee, origFeeTax: bt.feeTax})
		if o.touched == nil {
			o.touched = map[*session]bool{}
		}
		o.touched[bt.sess] = true
	}
	b.edit = o
	s.orders[id] = o
	s.noteExpiry(o.expiry)
	s.log.Info("edit started", "booking_id", b.id, "user_session_id", id)
	deals := make([]dealCamelJSON, 0, len(b.cinema.SuggestedDeals))
	for _, d := range b.cinema.SuggestedDeals {
		deals = append(deals, camelDeal(d))
	}
	return okReply(editBookingReply{Order: s.editOrderJSON(o, now), SuggestedDeals: deals})
}

type externalPaymentItem struct {
	AmountInCents            int64  `json:"amountInCents"`
	PaymentProviderReference string `json:"paymentProviderReference"`
	PaymentTenderCategory    string `json:"paymentTenderCategory"`
	CardNumberMasked         string `json:"cardNumberMasked"`
	CardType                 string `json:"cardType"`
}

type completeEditRequest struct {
	Payments *struct {
		ExternalPayments []externalPaymentItem `json:"externalPayments"`
	} `json:"payments"`
	RefundPayments *struct {
		ExternalPayments []externalPaymentItem `json:"externalPayments"`
	} `json:"refundPayments"`
}

type completeEditReply struct {
	Result             int     `json:"result"`
	ExtendedResultCode int     `json:"extendedResultCode"`
	ErrorDescription   *string `json:"errorDescription"`
	BookingNumber      int64   `json:"bookingNumber"`
	BookingID          string  `json:"bookingId"`
}

// sumItems checks external payment items and adds them up.
func sumItems(items []externalPaymentItem) (int64, *apiError) {
	var sum int64
	for i, it := range items {
		if it.AmountInCents <= 0 {
			return 0, &apiError{status: http.StatusBadRequest, result: resInvalidRequest, ext: extAmountMismatch, reason: "amount_mismatch", msg: fmt.Sprintf("externalPayments[%d].amountInCents must be positive", i)}
		}
		if it.PaymentProviderReference == "" || it.PaymentTenderCategory == "" {
			return 0, &apiError{status: http.StatusBadRequest, result: resInvalidRequest, reason: "invalid_request", msg: fmt.Sprintf("externalPayments[%d] needs paymentProviderReference and paymentTenderCategory", i)}
		}
		sum += it.AmountInCents
	}
	return sum, nil
}

// handleCompleteEdit commits an edit (contract 4.4). Which body is needed
// depends on whether the booking is paid and on the sign of the balance.
func (s *Server) handleCompleteEdit(r *http.Request) reply {
	var req completeEditRequest
	if e := decodeBody(r, &req, true); e != nil {
		return errReply(famEdit, e)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	o, e := s.lookup(r.PathValue("userSessionId"), now)
	if e != nil {
		return errReply(famEdit, e)
	}
	if o.edit == nil {
		return errReply(famEdit, &apiError{status: http.StatusBadRequest, result: resInvalidRequest, ext: extEditRefused, reason: "not_in_edit", msg: "the order is not an edit order"})
	}
	b := o.edit
	pays, refunds := req.items()
	if e := checkEditMoney(o, now, pays, refunds); e != nil {
		return errReply(famEdit, e)
	}
	s.commitEdit(o, now, pays, refunds)
	return okReply(completeEditReply{BookingNumber: b.number, BookingID: b.id})
}

// items are the external payments and the refunds the request gives (either may be absent).
func (req *completeEditRequest) items() (pays, refunds []externalPaymentItem) {
	if req.Payments != nil {
		pays = req.Payments.ExternalPayments
	}
	if req.RefundPayments != nil {
		refunds = req.RefundPayments.ExternalPayments
	}
	return pays, refunds
}

// checkEditMoney checks that the payments and refunds of a complete-edit are what the edit
// order's balance asks for: none for an unpaid booking or a zero balance, payments adding up
// to a positive balance, refunds adding up to a negative one.
func checkEditMoney(o *order, now time.Time, pays, refunds []externalPaymentItem) *apiError {
	paySum, e := sumItems(pays)
	if e != nil {
		return e
	}
	refundSum, e := sumItems(refunds)
	if e != nil {
		return e
	}
	balance := o.values(now).total
	switch {
	case !o.edit.paid:
		if len(pays) > 0 || len(refunds) > 0 {
			return editRefusal("unpaid_requires_no_payment", "the booking is unpaid: complete the edit with {} and no payments")
		}
	case balance > 0:
		return checkEditPayments(balance, pays, refunds, paySum)
	case balance < 0:
		return checkEditRefunds(-balance, pays, refunds, refundSum)
	default:
		if len(pays) > 0 || len(refunds) > 0 {
			return amountMismatch("the balance is zero: no payments or refunds are expected")
		}
	}
	return nil
}

// checkEditPayments checks the payments of a paid booking's edit with a balance to pay.
func checkEditPayments(balance int64, pays, refunds []externalPaymentItem, paySum int64) *apiError {
	if len(refunds) > 0 {
		return amountMismatch(fmt.Sprintf("the balance is %d cents to pay, not a refund", balance))
	}
	if len(pays) == 0 {
		return &apiError{status: http.StatusBadRequest, result: resInvalidRequest, ext: extEditRefused, reason: "payment_required",
			msg: fmt.Sprintf("the booking is paid and the balance is %d cents: payments.externalPayments are required", balance)}
	}
	if paySum != balance {
		return amountMismatch(fmt.Sprintf("external payments add up to %d cents, the balance is %d", paySum, balance))
	}
	return nil
}

// checkEditRefunds checks the refunds of a paid booking's edit with a refund due.
func checkEditRefunds(due int64, pays, refunds []externalPaymentItem, refundSum int64) *apiError {
	if len(pays) > 0 {
		return amountMismatch(fmt.Sprintf("the balance is a refund of %d cents, not a payment", due))
	}
	if len(refunds) == 0 {
		return &apiError{status: http.StatusBadRequest, result: resInvalidRequest, ext: extRefundRequired, reason: "refund_required",
			msg: fmt.Sprintf("the booking is paid: a refund of %d cents is required in refundPayments.externalPayments", due)}
	}
	if refundSum != due {
		return amountMismatch(fmt.Sprintf("refunds add up to %d cents, the refund due is %d", refundSum, due))
	}
	return nil
}

// amountMismatch refuses payments or refunds that do not match the balance.
func amountMismatch(msg string) *apiError {
	return &apiError{status: http.StatusBadRequest, result: resInvalidRequest, ext: extAmountMismatch, reason: "amount_mismatch", msg: msg}
}

// commitEdit writes the edit into the booking: removed tickets go, added
// tickets get new sequence numbers, moved seats move, every fee becomes the
// recalculated one, payments and refunds are appended. s.mu must be held.
func (s *Server) commitEdit(o *order, now time.Time, pays, refunds []externalPaymentItem) {
	b := o.edit
	fee, feeTax := o.feeNow(now)
	// Free the old places first: a new ticket may sit where a removed one sat.
	for _, bt := range b.tickets {
		if bt.sess.owners[bt.seat].booking == b {
			bt.sess.setOwner(bt.seat, owner{})
		}
	}
	for ss := range o.touched {
		for idx, w := range ss.owners {
			if w.order == o {
				ss.setOwner(idx, owner{})
			}
		}
	}
	bySeq := map[int]*bookedTicket{}
	maxSeq := 0
	for _, bt := range b.tickets {
		bySeq[bt.seq] = bt
		maxSeq = max(maxSeq, bt.seq)
	}
	var kept []*bookedTicket
	for _, t := range o.tickets {
		switch t.status {
		case statusRemoved:
			continue
		case statusBooked:
			bt := bySeq[t.seq]
			bt.seat, bt.fee, bt.feeTax = t.seat, fee, feeTax
			kept = append(kept, bt)
		case statusAdded:
			maxSeq++
			kept = append(kept, &bookedTicket{seq: maxSeq, sess: t.sess, tt: t.tt, seat: t.seat, price: t.price, tax: t.tax, fee: fee, feeTax: feeTax})
		}
	}
	b.tickets = kept
	for _, bt := range b.tickets {
		bt.sess.setOwner(bt.seat, owner{booking: b})
	}
	for _, p := range pays {
		b.payments = append(b.payments, paymentRecord{amount: p.AmountInCents, ref: p.PaymentProviderReference, tender: p.PaymentTenderCategory, masked: p.CardNumberMasked, cardType: p.CardType, external: true})
	}
	for _, p := range refunds {
		b.payments = append(b.payments, paymentRecord{amount: -p.AmountInCents, ref: p.PaymentProviderReference, tender: p.PaymentTenderCategory, masked: p.CardNumberMasked, cardType: p.CardType, external: true})
	}
	b.edit = nil
	delete(s.orders, o.id)
	s.finished[o.id] = true
	total, _ := b.totals()
	s.log.Info("edit completed", "booking_id", b.id, "user_session_id", o.id, "tickets", len(b.tickets), "total", total)
}
