package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// PaymentStatus letters of OrderWebPaymentData and AdditionalPayments.
const (
	payPending   = "P"
	payPaid      = "Y"
	payDeclined  = "N"
	payCancelled = "C"
	payRefunded  = "R"
)

// webPayment is the redirect payment record of an order.
type webPayment struct {
	paymentID   string
	token       string
	redirectURL string
	status      string
	amount      int64
	attempt     int
	cardMasked  string
	cardType    string
	method      string // ExternalPaymentInfo.PaymentMethod as sent
	inApp       bool   // ExternalPaymentInfo.IsInAppPayment as sent
}

// StartedPayment is what a client sent when it started a redirect payment (for tests that
// check the BFF's request, e.g. IsInAppPayment from a kiosk).
type StartedPayment struct {
	UserSessionID string
	PaymentMethod string
	InApp         bool
}

// StartedPayments lists the redirect payments started so far, in no particular order.
func (s *Server) StartedPayments() []StartedPayment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []StartedPayment
	for _, o := range s.payOrders {
		if o.web != nil {
			out = append(out, StartedPayment{UserSessionID: o.id, PaymentMethod: o.web.method, InApp: o.web.inApp})
		}
	}
	return out
}

type startPaymentRequest struct {
	UserSessionID       string `json:"UserSessionId"`
	AutoCompleteOrder   *bool  `json:"AutoCompleteOrder"`
	ExternalPaymentInfo *struct {
		ReturnURL      string `json:"ReturnUrl"`
		PaymentMethod  string `json:"PaymentMethod"`
		IsInAppPayment bool   `json:"IsInAppPayment"`
	} `json:"ExternalPaymentInfo"`
	OrderCompletionInfo *struct {
		CustomerInfo *struct {
			Name  string `json:"Name"`
			Email string `json:"Email"`
			Phone string `json:"Phone"`
		} `json:"CustomerInfo"`
		PrintSettings *struct {
			PrintStreamType     string `json:"PrintStreamType"`
			GeneratePrintStream bool   `json:"GeneratePrintStream"`
		} `json:"PrintSettings"`
	} `json:"OrderCompletionInfo"`
}

type startPaymentReply struct {
	ExtendedResultCode int     `json:"ExtendedResultCode"`
	PaymentRedirectURL string  `json:"PaymentRedirectUrl"`
	Result             int     `json:"Result"`
	ErrorDescription   *string `json:"ErrorDescription"`
}

// handleStartExternalPayment creates a provider payment for what remains to
// pay and parks the order until the provider decides. A repeat while the
// payment is pending answers the same address instead of a second payment.
func (s *Server) handleStartExternalPayment(r *http.Request) reply {
	var req startPaymentRequest
	if e := decodeBody(r, &req, false); e != nil {
		return errReply(famTicketing, e)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	o, e := s.lookup(req.UserSessionID, now)
	if e != nil {
		return errReply(famTicketing, e)
	}
	if o.edit != nil {
		return errReply(famTicketing, errNotInEdit)
	}
	if o.state == orderAwaitingPayment && o.web != nil {
		return okReply(startPaymentReply{PaymentRedirectURL: o.web.redirectURL})
	}
	if o.state != orderActive {
		return errReply(famTicketing, errCompleted)
	}
	if req.AutoCompleteOrder == nil || !*req.AutoCompleteOrder {
		return errReply(famTicketing, invalid("AutoCompleteOrder must be true: the connector completes redirect orders itself"))
	}
	if req.ExternalPaymentInfo == nil || req.ExternalPaymentInfo.ReturnURL == "" {
		return errReply(famTicketing, invalid("ExternalPaymentInfo.ReturnUrl is required"))
	}
	if len(o.tickets) == 0 {
		return errReply(famTicketing, invalid("the order has no tickets"))
	}
	v := o.values(now)
	if v.applied > v.total {
		return errReply(famTicketing, errAppliedTooMuch)
	}
	amount := v.toPay()
	if amount <= 0 {
		return errReply(famTicketing, &apiError{result: resInvalidRequest, ext: extAmountMismatch, msg: "nothing left to pay by redirect; complete the order with CompleteOrder"})
	}
	attempt := 1
	if o.web != nil {
		attempt = o.web.attempt + 1
	}
	pay, err := s.pay.Create(payprovider.CreateRequest{
		AmountInCents: amount, Currency: o.cinema.CurrencyCode, ReturnURL: req.ExternalPaymentInfo.ReturnURL,
		IdempotencyKey: fmt.Sprintf("%s-%d", o.id, attempt), Reference: o.id,
		Description: fmt.Sprintf("%s, %d ticket(s)", o.cinema.Name, v.count),
	})
	if err != nil {
		res := 13 // PaymentSystemError
		if errors.Is(err, payprovider.ErrInvalidRequest) {
			res = resInvalidRequest
		}
		return errReply(famTicketing, &apiError{result: res, msg: fmt.Sprintf("start external payment: %v", err)})
	}
	o.web = &webPayment{paymentID: pay.ID, token: pay.Token, redirectURL: s.pay.HostedURL(pay.ID), status: payPending, amount: amount, attempt: attempt,
		method: req.ExternalPaymentInfo.PaymentMethod, inApp: req.ExternalPaymentInfo.IsInAppPayment}
	if ci := req.OrderCompletionInfo; ci != nil {
		if c := ci.CustomerInfo; c != nil {
			o.customer = customerInfo{c.Name, c.Email, c.Phone}
		}
		if p := ci.PrintSettings; p != nil {
			o.print = printSettings{generate: p.GeneratePrintStream, streamType: p.PrintStreamType}
		}
	}
	o.state = orderAwaitingPayment
	o.updated = now
	s.payOrders[pay.ID] = o
	s.log.Info("external payment started", "user_session_id", o.id, "payment_id", pay.ID, "amount", amount, "attempt", attempt)
	return okReply(startPaymentReply{PaymentRedirectURL: o.web.redirectURL})
}

// onPayment is the connector: the provider calls it after every status
// change. A paid payment completes its order after the completion delay; a
// declined or cancelled one puts the order back to "ready for payment".
func (s *Server) onPayment(p payprovider.Payment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.payOrders[p.ID]
	if o == nil || o.web == nil || o.web.paymentID != p.ID || s.closed {
		return
	}
	now := s.clock.Now()
	switch p.Status {
	case payprovider.StatusPaid:
		o.web.status = payPaid
		o.web.cardMasked, o.web.cardType = p.CardNumberMasked, p.CardType
		if o.state == orderAwaitingPayment {
			s.scheduleCompletion(o.id, p.ID)
		}
	case payprovider.StatusDeclined, payprovider.StatusCancelled:
		o.web.status = payDeclined
		if p.Status == payprovider.StatusCancelled {
			o.web.status = payCancelled
		}
		if o.state == orderAwaitingPayment {
			// The hold was kept while the customer was away; give them a
			// fresh lifetime to try again.
			o.state = orderActive
			if exp := now.Add(orderLifetime); exp.After(o.expiry) {
				o.expiry = exp
			}
			s.noteExpiry(o.expiry)
			delete(s.payOrders, p.ID)
		}
	case payprovider.StatusRefunded:
		o.web.status = payRefunded
	}
	o.updated = now
	s.log.Info("payment status", "user_session_id", o.id, "payment_id", p.ID, "status", p.Status)
}

// scheduleCompletion completes the order after the completion delay (real
// time: it stands for the connector's own latency). s.mu must be held.
func (s *Server) scheduleCompletion(orderID, paymentID string) {
	delay := s.faults.completionDelay(s.completionDelay)
	if delay < 0 {
		s.log.Info("completion suppressed (completion delay: never)", "user_session_id", orderID)
		return
	}
	var t *time.Timer
	t = time.AfterFunc(delay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.timers, t)
		s.finishRedirect(orderID, paymentID)
	})
	s.timers[t] = struct{}{}
}

// finishRedirect completes a paid redirect order. s.mu must be held.
func (s *Server) finishRedirect(orderID, paymentID string) {
	if s.closed {
		return
	}
	o := s.orders[orderID]
	if o == nil || o.state != orderAwaitingPayment || o.web == nil || o.web.paymentID != paymentID || o.web.status != payPaid {
		return
	}
	w := o.web
	s.complete(o, s.clock.Now(), true, []paymentRecord{{amount: w.amount, ref: w.paymentID, tender: defaultTender, masked: w.cardMasked, cardType: w.cardType, external: true}})
	delete(s.payOrders, paymentID)
}
