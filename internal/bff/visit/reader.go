package visit

import (
	"errors"
	"strings"

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

// ReaderOutcome says, in l's words, why a card-reader payment took nothing (the ledger keeps
// the provider's own words for staff).
func ReaderOutcome(l *i18n.Localizer, entry ledger.Entry) string {
	switch why := entry.LastError; {
	case strings.HasPrefix(why, "cancelled"):
		return l.T("booking.reader_cancelled")
	case strings.HasPrefix(why, "nobody presented a card"), strings.HasPrefix(why, "not handed to the reader"):
		return l.T("booking.reader_timed_out")
	case strings.HasPrefix(why, "the reader did not take"):
		return l.T("booking.reader_not_started")
	}
	return l.T("booking.reader_declined")
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
