package sandbox

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"time"
)

// Gift card and loyalty payments are applied to an order before the
// redirect payment (contract 4.7). Applying reserves the amount on the card
// or account so two orders cannot spend the same balance; completion spends
// it, cancel and expiry give it back.

type applyGiftCardRequest struct {
	UserSessionID string `json:"UserSessionId"`
	CardNumber    string `json:"CardNumber"`
	Pin           string `json:"Pin"`
	AmountInCents *int64 `json:"AmountInCents"`
}

type applyLoyaltyRequest struct {
	UserSessionID     string `json:"UserSessionId"`
	LoyaltyCardNumber string `json:"LoyaltyCardNumber"`
	Pin               string `json:"Pin"`
	AmountInCents     *int64 `json:"AmountInCents"`
}

type applyReply struct {
	orderEnvelope
	AmountAppliedInCents    int64 `json:"AmountAppliedInCents"`
	BalanceRemainingInCents int64 `json:"BalanceRemainingInCents"`
	AmountToPayInCents      int64 `json:"AmountToPayInCents"`
}

func (s *Server) handleApplyGiftCard(r *http.Request) reply {
	return onActiveOrder(s, r, func(req *applyGiftCardRequest, o *order, now time.Time) reply {
		if o.edit != nil {
			return errReply(famTicketing, errNotInEdit)
		}
		card, ok := s.giftCards[req.CardNumber]
		if !ok || card.Pin != req.Pin {
			return errReply(famTicketing, &apiError{result: resInvalidRequest, ext: extGiftCardUnknown, msg: "gift card unknown or PIN wrong"})
		}
		if card.Currency != o.cinema.CurrencyCode {
			return errReply(famTicketing, &apiError{result: resInvalidRequest, ext: extGiftCardUnknown, msg: fmt.Sprintf("gift card is in %s, the cinema takes %s", card.Currency, o.cinema.CurrencyCode)})
		}
		return s.apply(o, now, "GiftCard", card.Number, req.AmountInCents, card.BalanceInCents-card.reserved, func(d int64) { card.reserved += d }, resInvalidRequest)
	})
}

func (s *Server) handleApplyLoyalty(r *http.Request) reply {
	return onActiveOrder(s, r, func(req *applyLoyaltyRequest, o *order, now time.Time) reply {
		if o.edit != nil {
			return errReply(famTicketing, errNotInEdit)
		}
		acct, ok := s.loyalty[req.LoyaltyCardNumber]
		if !ok || !samePin(acct.Pin, req.Pin) {
			// A missing or wrong PIN reads exactly like an unknown card: the answer never
			// confirms that a card number belongs to a member.
			return errReply(famTicketing, &apiError{result: resMemberNotFound, msg: "loyalty member not found"})
		}
		return s.apply(o, now, "Loyalty", acct.CardNumber, req.AmountInCents, acct.PointsBalance-acct.reserved, func(d int64) { acct.reserved += d }, resInsufficientPts)
	})
}

// samePin compares a PIN in constant time; an empty PIN never matches.
func samePin(want, got string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// apply records a gift card or loyalty payment on an order, replacing an
// earlier one of the same card. available is what the card has left
// outside this order; reserve moves the card's reservation.
func (s *Server) apply(o *order, now time.Time, kind, card string, want *int64, available int64, reserve func(int64), shortResult int) reply {
	prev := int64(0)
	at := -1
	for i, a := range o.applied {
		if a.kind == kind && a.card == card {
			prev, at = a.amount, i
		}
	}
	available += prev // this order's own reservation is free to move
	v := o.values(now)
	remaining := v.total - (v.applied - prev)
	amount := min(available, remaining)
	if want != nil {
		amount = *want
	}
	switch {
	case amount <= 0 && available <= 0:
		return errReply(famTicketing, &apiError{result: shortResult, ext: extNoBalance, msg: "no balance left on the card or account"})
	case amount <= 0 || remaining <= 0:
		return errReply(famTicketing, &apiError{result: resInvalidRequest, ext: extAmountMismatch, msg: "nothing left to pay on the order"})
	case amount > available:
		return errReply(famTicketing, &apiError{result: shortResult, ext: extNoBalance, msg: fmt.Sprintf("only %d cents available", available)})
	case amount > remaining:
		return errReply(famTicketing, &apiError{result: resInvalidRequest, ext: extAmountMismatch, msg: fmt.Sprintf("only %d cents left to pay", remaining)})
	}
	reserve(amount - prev)
	if at >= 0 {
		o.applied[at].amount = amount
	} else {
		o.applied = append(o.applied, appliedPayment{kind: kind, card: card, amount: amount, status: "P"})
	}
	o.updated = now
	j := s.orderJSON(o, now)
	return okReply(applyReply{orderEnvelope: orderEnvelope{Order: &j}, AmountAppliedInCents: amount,
		BalanceRemainingInCents: available - amount, AmountToPayInCents: j.AmountToPayInCents})
}

// unreserve gives back every reservation of an order. s.mu must be held.
func (s *Server) unreserve(o *order) {
	if o.state == orderCompleted {
		return
	}
	for _, a := range o.applied {
		if a.status != "P" {
			continue
		}
		if a.kind == "Loyalty" {
			if acct, ok := s.loyalty[a.card]; ok {
				acct.reserved -= a.amount
			}
		} else if card, ok := s.giftCards[a.card]; ok {
			card.reserved -= a.amount
		}
	}
}

// spend turns a reservation into a debit. s.mu must be held.
func (s *Server) spend(a *appliedPayment) {
	if a.kind == "Loyalty" {
		if acct, ok := s.loyalty[a.card]; ok {
			acct.reserved -= a.amount
			acct.PointsBalance -= a.amount
		}
	} else if card, ok := s.giftCards[a.card]; ok {
		card.reserved -= a.amount
		card.BalanceInCents -= a.amount
	}
}
