package sandbox

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

type completeOrderRequest struct {
	UserSessionID       string `json:"UserSessionId"`
	CustomerName        string `json:"CustomerName"`
	CustomerEmail       string `json:"CustomerEmail"`
	CustomerPhone       string `json:"CustomerPhone"`
	BookingMode         *int   `json:"BookingMode"`
	PerformPayment      *bool  `json:"PerformPayment"`
	GeneratePrintStream bool   `json:"GeneratePrintStream"`
	ReturnPrintStream   bool   `json:"ReturnPrintStream"`
	PrintStreamType     string `json:"PrintStreamType"`
	PaymentInfo         *struct {
		PaymentValueCents     int64  `json:"PaymentValueCents"`
		PaymentTenderCategory string `json:"PaymentTenderCategory"`
		CardNumber            string `json:"CardNumber"`
		CardType              string `json:"CardType"`
	} `json:"PaymentInfo"`
}

// defaultTender is the tender category recorded for a card payment whose
// tender is not given (the real service's usual CREDIT).
const defaultTender = "CREDIT"

// declinedCard is the card number CompleteOrder declines, to exercise
// PaymentDeclined without a real bank.
const declinedCard = "4000000000000002"

// handleCompleteOrder completes a regular order through the service's own
// payment processing (BookingMode 0) or as an unpaid reservation (1).
func (s *Server) handleCompleteOrder(r *http.Request) reply {
	return onActiveOrder(s, r, func(req *completeOrderRequest, o *order, now time.Time) reply {
		if o.edit != nil {
			return errReply(famTicketing, errNotInEdit)
		}
		if len(o.tickets) == 0 {
			return errReply(famTicketing, invalid("the order has no tickets"))
		}
		mode := 0
		if req.BookingMode != nil {
			mode = *req.BookingMode
		}
		if mode != 0 && mode != 1 {
			return errReply(famTicketing, invalid("BookingMode must be 0 (sale) or 1 (reservation)"))
		}
		v := o.values(now)
		if v.applied > v.total {
			return errReply(famTicketing, errAppliedTooMuch)
		}
		var pays []paymentRecord
		if mode == 1 {
			if len(o.applied) > 0 {
				return errReply(famTicketing, &apiError{result: resInvalidRequest, ext: extAmountMismatch, msg: "a reservation cannot carry gift card or loyalty payments"})
			}
		} else if toPay := v.toPay(); toPay > 0 {
			pi := req.PaymentInfo
			if pi == nil || (req.PerformPayment != nil && !*req.PerformPayment) {
				return errReply(famTicketing, invalid("PaymentInfo is required for a sale with %d cents to pay", toPay))
			}
			if pi.PaymentValueCents != toPay {
				return errReply(famTicketing, &apiError{result: resInvalidRequest, ext: extAmountMismatch, msg: fmt.Sprintf("PaymentValueCents %d does not match the %d cents to pay", pi.PaymentValueCents, toPay)})
			}
			card := strings.ReplaceAll(pi.CardNumber, " ", "")
			if card == declinedCard {
				return errReply(famTicketing, &apiError{result: resPaymentDeclined, msg: "payment declined by the card issuer"})
			}
			tender := pi.PaymentTenderCategory
			if tender == "" {
				tender = defaultTender
			}
			pays = append(pays, paymentRecord{amount: toPay, tender: tender, masked: maskCard(card), cardType: pi.CardType})
		}
		o.customer = customerInfo{req.CustomerName, req.CustomerEmail, req.CustomerPhone}
		o.print = printSettings{generate: req.GeneratePrintStream, streamType: req.PrintStreamType}
		b := s.complete(o, now, mode == 0, pays)
		if len(pays) > 0 {
			b.payments[0].ref = fmt.Sprintf("INT%d", b.transID)
		}
		return okReply(completeOrderReply(b, o, mode, req.ReturnPrintStream))
	})
}

// completeOrderJSON is the flat CompleteOrder reply of the real service
// (wire-profile "CompleteOrder reply").
type completeOrderJSON struct {
	Result                int      `json:"Result"`
	ExtendedResultCode    int      `json:"ExtendedResultCode"`
	ErrorDescription      *string  `json:"ErrorDescription"`
	VistaBookingNumber    int64    `json:"VistaBookingNumber"`
	VistaBookingID        string   `json:"VistaBookingId"`
	VistaTransNumber      int64    `json:"VistaTransNumber"`
	PrintStream           string   `json:"PrintStream"`
	PrintStreamCollection []string `json:"PrintStreamCollection"`
}

// completeOrderReply renders the flat reply: a reservation (mode 1) has no
// transaction, so VistaTransNumber is 0. PrintStream holds every document
// one after the other, PrintStreamCollection one string per document; both
// are empty unless the print streams were asked to be returned.
func completeOrderReply(b *booking, o *order, mode int, withPrint bool) completeOrderJSON {
	j := completeOrderJSON{VistaBookingNumber: b.number, VistaBookingID: b.id, PrintStreamCollection: []string{}}
	if mode == 0 {
		j.VistaTransNumber = b.transID
	}
	if withPrint {
		var all strings.Builder
		for _, ps := range o.streams {
			all.WriteString(ps.data)
			j.PrintStreamCollection = append(j.PrintStreamCollection, ps.data)
		}
		j.PrintStream = all.String()
	}
	return j
}

var errAppliedTooMuch = &apiError{result: resInvalidRequest, ext: extAmountMismatch, msg: "gift card and loyalty payments exceed the order total; apply a smaller amount"}

// complete turns an order into a booking: seats become sold (or reserved),
// gift card and loyalty reservations are spent, print streams are made.
// s.mu must be held.
func (s *Server) complete(o *order, now time.Time, paid bool, pays []paymentRecord) *booking {
	v := o.values(now)
	o.frozen = &v
	fee, feeTax := o.feeNow(now)
	for {
		s.nextBooking++
		if _, taken := s.bookingNums[bookingKey{o.cinema.ID, s.nextBooking}]; !taken {
			if _, taken := s.bookings[fmt.Sprintf("BK%06X", s.nextBooking)]; !taken {
				break
			}
		}
	}
	s.nextTrans++
	b := &booking{number: s.nextBooking, id: fmt.Sprintf("BK%06X", s.nextBooking), cinema: o.cinema, transID: s.nextTrans,
		customerName: o.customer.name, customerEmail: o.customer.email, created: now, paid: paid}
	for i, t := range o.tickets {
		b.tickets = append(b.tickets, &bookedTicket{seq: i + 1, sess: t.sess, tt: t.tt, seat: t.seat, price: t.price, tax: t.tax, fee: fee, feeTax: feeTax, pkg: t.pkg})
		if t.seat >= 0 {
			t.sess.setOwner(t.seat, owner{booking: b})
		}
	}
	b.payments = append(b.payments, pays...)
	for i := range o.applied {
		a := &o.applied[i]
		s.spend(a)
		a.status = "Y"
		tender := "GIFTCARD"
		if a.kind == "Loyalty" {
			tender = "LOYALTY"
		}
		b.payments = append(b.payments, paymentRecord{amount: a.amount, ref: a.card, tender: tender, masked: maskCard(a.card), cardType: strings.ToUpper(a.kind)})
	}
	o.state = orderCompleted
	o.done = b
	s.bookings[b.id] = b
	s.bookingNums[bookingKey{o.cinema.ID, b.number}] = b
	if o.print.generate {
		o.streams = printStreams(b, o.print.streamType)
	}
	s.log.Info("order completed", "user_session_id", o.id, "booking_number", b.number, "booking_id", b.id, "paid", paid)
	return b
}

// Order details (contract 2.5, brand fields named Vista… as on the real wire).
type orderDetailsJSON struct {
	ExtendedResultCode  int                     `json:"ExtendedResultCode"`
	OrderIdentifiers    orderIdentifiersJSON    `json:"OrderIdentifiers"`
	OrderWebPaymentData webPaymentJSON          `json:"OrderWebPaymentData"`
	AdditionalPayments  []additionalPaymentJSON `json:"AdditionalPayments"`
	MemberBalances      []memberBalanceJSON     `json:"MemberBalances"`
	Attachments         []any                   `json:"Attachments"`
	PrintStreams        []printStreamJSON       `json:"PrintStreams"`
	Result              int                     `json:"Result"`
	ErrorDescription    *string                 `json:"ErrorDescription"`
}

type orderIdentifiersJSON struct {
	CinemaID           string `json:"CinemaId"`
	UserSessionID      string `json:"UserSessionId"`
	ClientID           string `json:"ClientId"`
	HistoryID          int64  `json:"HistoryId"`
	VistaBookingNumber int64  `json:"VistaBookingNumber"`
	VistaBookingID     string `json:"VistaBookingId"`
	VistaTransNumber   int64  `json:"VistaTransNumber"`
	IsCompletedOrder   bool   `json:"IsCompletedOrder"`
}

type webPaymentJSON struct {
	UserID            string `json:"UserId"`
	CustomerName      string `json:"CustomerName"`
	CardNumber        string `json:"CardNumber"`
	CardType          string `json:"CardType"`
	CardExpiryMonth   string `json:"CardExpiryMonth"`
	CardExpiryYear    string `json:"CardExpiryYear"`
	HasCheckedSendSMS bool   `json:"HasCheckedSendSMS"`
	LoyaltyCardNumber string `json:"LoyaltyCardNumber"`
	AttemptNumber     int    `json:"AttemptNumber"`
	Token             string `json:"Token"`
	BankService       string `json:"BankService"`
	VistaTransRef     string `json:"VistaTransRef"`
	AmountInCents     int64  `json:"AmountInCents"`
	PaymentStatus     string `json:"PaymentStatus"`
}

type additionalPaymentJSON struct {
	AmountInCents       int64  `json:"AmountInCents"`
	BilledAmountInCents int64  `json:"BilledAmountInCents"`
	MaskedCardNumber    string `json:"MaskedCardNumber"`
	CardType            string `json:"CardType"`
	PaymentStatus       string `json:"PaymentStatus"`
}

// memberBalanceJSON is our shape for MemberBalances (the contract does not
// show its fields): the loyalty account used on the order.
type memberBalanceJSON struct {
	LoyaltyCardNumber string `json:"LoyaltyCardNumber"`
	PointsRemaining   int64  `json:"PointsRemaining"`
}

type printStreamJSON struct {
	PrintStream  string `json:"PrintStream"`
	PrintDocType int    `json:"PrintDocType"`
}

// orderDetails renders contract 2.5 for any order at any stage. s.mu must be held.
func (s *Server) orderDetails(o *order) orderDetailsJSON {
	d := orderDetailsJSON{
		OrderIdentifiers: orderIdentifiersJSON{CinemaID: o.cinema.ID, UserSessionID: o.id, ClientID: "SANDBOX", HistoryID: o.history,
			IsCompletedOrder: o.state == orderCompleted},
		OrderWebPaymentData: webPaymentJSON{UserID: o.customer.email, CustomerName: o.customer.name, BankService: "SANDBOXPAY"},
		AdditionalPayments:  []additionalPaymentJSON{}, MemberBalances: []memberBalanceJSON{}, Attachments: []any{},
		PrintStreams: []printStreamJSON{},
	}
	if b := o.done; b != nil {
		d.OrderIdentifiers.VistaBookingNumber, d.OrderIdentifiers.VistaBookingID, d.OrderIdentifiers.VistaTransNumber = b.number, b.id, b.transID
	}
	if w := o.web; w != nil {
		wp := &d.OrderWebPaymentData
		wp.CardNumber, wp.CardType, wp.AttemptNumber, wp.Token = w.cardMasked, w.cardType, w.attempt, w.token
		wp.VistaTransRef, wp.AmountInCents, wp.PaymentStatus = w.paymentID, w.amount, w.status
		if w.cardMasked != "" {
			wp.CardExpiryMonth, wp.CardExpiryYear = "12", fmt.Sprintf("%04d", o.created.Year()+3)
		}
	}
	for _, a := range o.applied {
		cardType := "GIFTCARD"
		if a.kind == "Loyalty" {
			cardType = "LOYALTY"
			d.OrderWebPaymentData.LoyaltyCardNumber = a.card
			if acct, ok := s.loyalty[a.card]; ok {
				d.MemberBalances = append(d.MemberBalances, memberBalanceJSON{a.card, acct.PointsBalance - acct.reserved})
			}
		}
		d.AdditionalPayments = append(d.AdditionalPayments, additionalPaymentJSON{a.amount, a.amount, maskCard(a.card), cardType, a.status})
	}
	for _, ps := range o.streams {
		d.PrintStreams = append(d.PrintStreams, printStreamJSON{ps.data, ps.docType})
	}
	return d
}

func (s *Server) handleOrderDetails(r *http.Request) reply {
	id := r.URL.Query().Get("userSessionId")
	if id == "" {
		id = r.URL.Query().Get("UserSessionId")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o, e := s.lookup(id, s.clock.Now())
	if e != nil {
		return errReply(famTicketing, e)
	}
	if o.edit != nil {
		return errReply(famTicketing, errNotInEdit)
	}
	return okReply(s.orderDetails(o))
}
