package visit

import (
	"errors"
	"strings"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// ReaderRefusal says why the reader did not take the payment, in l's words.
func ReaderRefusal(l *i18n.Localizer, err error) string {
	switch {
	case errors.Is(err, upstream.ErrReaderOffline):
		return l.T("booking.reader_offline")
	case errors.Is(err, upstream.ErrReaderBusy):
		return l.T("booking.reader_busy")
	case errors.Is(err, settlement.ErrNoReaders):
		return l.T("staff.counter.no_reader")
	}
	return l.T("booking.reader_not_started")
}

// ReaderOutcome says, in l's words, why a card-reader payment took nothing and what to do next
// (the ledger keeps the provider's own words for staff).
func ReaderOutcome(l *i18n.Localizer, entry ledger.Entry) string {
	return l.T(readerEndWords[settlement.ReaderEndOf(entry)])
}

// readerEndWords are the message ids of each way a card-reader payment takes nothing.
var readerEndWords = map[settlement.ReaderEnd]string{
	settlement.ReaderDeclined:          "booking.reader_declined",
	settlement.ReaderCancelled:         "booking.reader_cancelled",
	settlement.ReaderCancelledOnReader: "booking.reader_cancelled_on_reader",
	settlement.ReaderBusy:              "booking.reader_busy",
	settlement.ReaderOffline:           "booking.reader_offline",
	settlement.ReaderTimedOut:          "booking.reader_timed_out",
	settlement.ReaderStopped:           "booking.reader_stopped",
	settlement.ReaderNotStarted:        "booking.reader_not_started",
	settlement.ReaderLeft:              "booking.reader_left",
}

// SaleReversalWords says, in l's words, why a purchase paid on the reader was not booked and
// that the amount goes back to the card.
func SaleReversalWords(l *i18n.Localizer, entry ledger.Entry) string {
	amount := l.Money(cinema.Money{Cents: entry.AmountCents, Currency: entry.Currency})
	switch settlement.SaleReversalOf(entry) {
	case settlement.SaleOrderChanged:
		return l.T("checkout.reader_order_changed_text", "Amount", amount)
	case settlement.SaleGivenUp:
		return l.T("checkout.reader_given_back", "Amount", amount)
	}
	return l.T("checkout.reader_not_booked_text", "Amount", amount)
}

// LetGoNotice says, in l's words, what became of a card that paid as its order was let go
// (given back, or booked after all); "" when no card paid.
func LetGoNotice(l *i18n.Localizer, gone ...LetGo) string {
	var out []string
	for _, g := range gone {
		switch {
		case g.Unanswered && g.Change:
			out = append(out, l.T("booking.reader_unanswered"))
		case g.Unanswered:
			out = append(out, l.T("checkout.reader_unanswered"))
		}
		e := g.Paid
		if e == nil {
			continue
		}
		amount := l.Money(cinema.Money{Cents: e.AmountCents, Currency: e.Currency})
		switch {
		case e.Kind == ledger.KindSale && (e.State == ledger.StateRefundRequested || e.State == ledger.StateRefunded):
			out = append(out, SaleReversalWords(l, *e))
		case e.Kind == ledger.KindSale && e.BookingNumber == 0:
			out = append(out, l.T("checkout.reader_booking_anyway", "Amount", amount))
		case e.Kind == ledger.KindSale:
			out = append(out, l.T("checkout.reader_booked_anyway", "Amount", amount, "Number", e.BookingNumber))
		case e.State == ledger.StateRefundRequested || e.State == ledger.StateRefunded:
			out = append(out, l.T("booking.reader_given_back", "Amount", amount))
		default:
			out = append(out, l.T("booking.reader_saved_anyway", "Amount", amount, "Number", e.BookingNumber))
		}
	}
	return strings.Join(out, " ")
}

// CardWords names how a payment was made, in l's words: the card's brand and masked number as
// the provider or the ticketing system gave them, or, for the box office's own tenders (stored
// in English, and upper-cased by some ticketing systems), the tender's name in l's language.
func CardWords(l *i18n.Localizer, cardType, masked string) string {
	switch strings.ToLower(strings.TrimSpace(cardType)) {
	case "cash":
		cardType = l.T("common.tender_cash")
	case "card terminal", "terminal":
		cardType = l.T("common.tender_terminal")
	case "card reader", "reader":
		cardType = l.T("common.tender_reader")
	}
	return strings.TrimSpace(cardType + " " + masked)
}
