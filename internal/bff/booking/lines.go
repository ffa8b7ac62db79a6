package booking

import (
	"strings"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/internal/refunds"
	"github.com/cinemabff/cinemabff/views/pages/bookingview"
)

// editPayWith says, in l's language, how the balance is settled: paid by card on the next
// step, at the cinema, or refunded to the booking's payments (the newest first, as the refund
// will be planned).
func editPayWith(l *i18n.Localizer, e visit.Edit, balance cinema.Money) (string, []string) {
	switch {
	case balance.Cents > 0 && e.Paid:
		return l.T("booking.pay_by_card"), nil
	case balance.Cents > 0:
		return l.T("booking.pay_at_cinema"), nil
	case balance.Cents < 0 && !e.Paid:
		return l.T("booking.pay_less_at_cinema"), nil
	case balance.Cents < 0:
		var pays []refunds.Payment
		for _, p := range e.Payments {
			pays = append(pays, refunds.Payment{Reference: p.Reference, CardType: p.CardType, CardMasked: p.Masked, PaidCents: p.Cents, RefundableCents: -1})
		}
		plan, err := refunds.Plan(-balance.Cents, pays)
		if err != nil || len(plan) == 0 {
			return l.T("booking.refund_to_payment"), nil
		}
		var to []string
		for _, part := range plan {
			card := visit.CardWords(l, part.Payment.CardType, part.Payment.CardMasked)
			if card == "" {
				card = l.T("booking.original_payment")
			}
			to = append(to, l.T("booking.refund_part", "Amount", l.Money(cinema.Money{Cents: part.AmountCents, Currency: balance.Currency}), "Card", card))
		}
		return l.T("booking.refund_to_payments"), to
	}
	return "", nil
}

// counterPayWith is editPayWith's line in the box office's words: the clerk takes the payment
// on the next step, or refunds to the customer's card.
func counterPayWith(l *i18n.Localizer, e visit.Edit, balance cinema.Money, customers string) string {
	switch {
	case balance.Cents > 0:
		return l.T("booking.counter.pay_next_step")
	case balance.Cents < 0 && e.Paid:
		return l.T("booking.counter.refund_to_card")
	}
	return customers
}

// editSteppers is a − n + row per ticket type that can be added: how many of the type the
// booking has, and the ticket − removes (the newest of the type; none when it is the
// booking's last ticket, which cannot be removed).
func editSteppers(l *i18n.Localizer, o cinema.Order, types []cinema.TicketType) []bookingview.StepperView {
	var out []bookingview.StepperView
	active := 0
	for _, t := range o.Tickets() {
		if !(t.StateKnown && t.State == cinema.LineRemoved) {
			active++
		}
	}
	for _, tt := range types {
		if !tt.Simple() {
			continue
		}
		st := bookingview.StepperView{Type: tt.Code, Name: tt.Description, Price: l.Money(tt.Price)}
		for _, t := range o.Tickets() {
			if t.TypeCode != tt.Code || (t.StateKnown && t.State == cinema.LineRemoved) {
				continue
			}
			st.Count++
			if active > 1 {
				st.RemoveTicket = t.ID
				st.RemoveWhat = strings.TrimSuffix(t.Description+", "+words.Seat(l, t.Seat), ", ")
			}
		}
		out = append(out, st)
	}
	return out
}

// editLines lists the order's tickets with their state and their seats by their labels, the
// seats' words in English (editLinesIn: in a visitor's language). The contract's ticketing
// order does not say which tickets were booked before; when the upstream does not say either,
// the state is derived from the tickets the edit started with.
func editLines(e visit.Edit, o cinema.Order) (lines []bookingview.LineView, changed bool) {
	original := map[string]visit.OriginLine{}
	for _, ol := range e.Original {
		original[ol.ID] = ol
	}
	seen := map[string]bool{}
	for _, t := range o.Tickets() {
		state := t.State
		if !t.StateKnown {
			if _, ok := original[t.ID]; ok {
				state = cinema.LineKept
			} else {
				state = cinema.LineAdded
			}
		}
		seen[t.ID] = true
		lv := lineView(state, t.ID, t.Description, words.SeatNameOf(t.Seat), t.FinalPrice)
		// A booked ticket on another seat than it had is moved, not kept.
		if ol, ok := original[t.ID]; ok && state == cinema.LineKept && ol.Seat != "" && lv.Seat != "" && lv.Seat != ol.Seat {
			from := ol.SeatName()
			lv.State, lv.From, lv.FromRow, lv.FromLabel = lineMoved, from.Key(), from.Row, from.Seat
			changed = true
		}
		lines = append(lines, lv)
		if state == cinema.LineAdded || state == cinema.LineRemoved {
			changed = true
		}
	}
	for _, ol := range e.Original {
		if !seen[ol.ID] {
			lines = append(lines, lineView(cinema.LineRemoved, ol.ID, ol.Description, ol.SeatName(), cinema.Money{Cents: ol.PriceCents, Currency: e.Currency}))
			changed = true
		}
	}
	return lines, changed
}

// editLinesIn is editLines in l's language: the words the edit page shows and the change's
// message and records keep (Seat and From in l's words too).
func editLinesIn(l *i18n.Localizer, e visit.Edit, o cinema.Order) ([]bookingview.LineView, bool) {
	lines, changed := editLines(e, o)
	for i := range lines {
		lv := &lines[i]
		switch lv.State {
		case "kept":
			lv.StateLabel = l.T("booking.line_kept")
		case "added":
			lv.StateLabel = l.T("booking.line_added")
		case "removed":
			lv.StateLabel = l.T("booking.line_removed")
		case lineMoved:
			lv.StateLabel = l.T("booking.line_moved")
		default:
			lv.StateLabel = l.T("booking.line_unknown")
		}
		lv.Seat = lineSeat(lv).Words(l)
		lv.From = lineFrom(lv).Words(l)
		lv.Price = l.Money(lv.Amount)
	}
	return lines, changed
}

// lineMoved is the state of a booked ticket that has another seat now (the upstream calls it
// booked: only its seat changed).
const lineMoved = "moved"

func lineView(state cinema.LineState, id, desc string, seat words.SeatName, price cinema.Money) bookingview.LineView {
	return bookingview.LineView{State: state.String(), Description: desc, Seat: seat.Key(), SeatRow: seat.Row, SeatLabel: seat.Seat,
		Amount: price, TicketID: id}
}

// lineSeat and lineFrom are a line's seat and a moved line's seat before the change.
func lineSeat(lv *bookingview.LineView) words.SeatName {
	return words.SeatName{Row: lv.SeatRow, Seat: lv.SeatLabel, Text: lv.Seat}
}

func lineFrom(lv *bookingview.LineView) words.SeatName {
	return words.SeatName{Row: lv.FromRow, Seat: lv.FromLabel, Text: lv.From}
}

// noticeLines says what an edit changes, for its message.
func noticeLines(lines []bookingview.LineView) []notify.Line {
	var out []notify.Line
	for _, l := range lines {
		n := notify.Line{Description: l.Description, Seat: l.Seat}
		switch l.State {
		case "added":
			n.Change = notify.ChangeAdded
		case "removed":
			n.Change = notify.ChangeRemoved
		case visit.ChangeMoved:
			n.Change, n.From = notify.ChangeMoved, l.From
		default:
			n.Change = notify.ChangeKept
		}
		out = append(out, n)
	}
	return out
}
