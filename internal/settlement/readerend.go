package settlement

import (
	"errors"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Why a card-reader payment ended as it did. The ledger keeps these words (LastError) for
// staff; ReaderEndOf and SaleReversalOf read them back for the words a person is told, so each
// outcome keeps its own beginning here.
const (
	whyDeclined          = "declined at the reader: "
	whyCustomerCancelled = "cancelled on the reader by the customer: "
	whyCancelledEarly    = "cancelled before the reader asked for the card"
	whyMovedOn           = "the reader moved on to another payment"
	whyIdle              = "the reader is not asking for this payment"
	whyNobody            = "nobody presented a card in time"
	whyNotHanded         = "not handed to the reader in time"
	whyBusy              = "the reader is busy with another payment: "
	whyOffline           = "the reader is offline: "
	whyNotTaken          = "the reader did not take the payment: "
	whyProviderEnded     = "card-present payment "
	// The reasons an order paid on a reader was not completed, and the money went back.
	whyGivenUpPaid    = "the order was given up at the device as the card paid"
	whyOrderChanged   = "the order's amount changed after the reader asked: "
	whyDeclinedLegacy = "declined or stopped at the reader: " // entries written before the outcomes were told apart
)

// ErrReaderReading means the provider would not cancel a card-reader payment and has not
// decided it: the reader is reading a card, and its answer decides.
var ErrReaderReading = errors.New("settlement: the card reader is reading a card")

// readerAnswerWait bounds how long StopAtReader waits for the answer of a reader that is
// reading a card (a card read takes seconds); readerAnswerPoll is how often it asks meanwhile.
const (
	readerAnswerWait = 30 * time.Second
	readerAnswerPoll = 500 * time.Millisecond
)

// notTakenWhy says why the reader did not take a payment handed to it.
func notTakenWhy(err error) string {
	switch {
	case errors.Is(err, upstream.ErrReaderBusy):
		return whyBusy + err.Error()
	case errors.Is(err, upstream.ErrReaderOffline):
		return whyOffline + err.Error()
	}
	return whyNotTaken + err.Error()
}

// ReaderEnd is why a card-reader payment took nothing, as a person is told it.
type ReaderEnd int

const (
	// ReaderDeclined: the card was declined.
	ReaderDeclined ReaderEnd = iota + 1
	// ReaderCancelled: stopped here (Cancel on the page, the order changed or was given up).
	ReaderCancelled
	// ReaderCancelledOnReader: the customer pressed Cancel on the reader.
	ReaderCancelledOnReader
	// ReaderBusy: the reader was busy with, or went on to, another payment.
	ReaderBusy
	// ReaderOffline: the reader did not answer.
	ReaderOffline
	// ReaderTimedOut: nobody presented a card in time.
	ReaderTimedOut
	// ReaderStopped: the reader stopped asking by itself (reset, or its action cleared
	// elsewhere).
	ReaderStopped
	// ReaderNotStarted: the payment could not be handed to the reader.
	ReaderNotStarted
	// ReaderLeft: the device left the reader's page, and the reader stopped asking.
	ReaderLeft
)

// readerEnds are the beginnings of the ledger's words and the outcome each tells.
var readerEnds = []struct {
	prefix string
	end    ReaderEnd
}{
	{whyDeclined, ReaderDeclined},
	{whyDeclinedLegacy, ReaderDeclined},
	{whyCustomerCancelled, ReaderCancelledOnReader},
	{string(StopLeft), ReaderLeft}, // before StopCancelled, which begins it
	{string(StopCancelled), ReaderCancelled},
	{whyCancelledEarly, ReaderCancelled},
	{whyMovedOn, ReaderBusy},
	{whyBusy, ReaderBusy},
	{whyOffline, ReaderOffline},
	{whyIdle, ReaderStopped},
	{whyNobody, ReaderTimedOut},
	{whyNotHanded, ReaderTimedOut},
	{whyNotTaken, ReaderNotStarted},
	{whyProviderEnded + "declined", ReaderDeclined},
	{whyProviderEnded + "cancelled", ReaderCancelled},
}

// ReaderEndOf says why the card-reader payment of a failed entry took nothing. An entry whose
// reason is not known reads as not started: never as declined, which would blame the card.
func ReaderEndOf(e ledger.Entry) ReaderEnd {
	for _, r := range readerEnds {
		if strings.HasPrefix(e.LastError, r.prefix) {
			return r.end
		}
	}
	return ReaderNotStarted
}

// SaleReversal is why a sale paid on a reader was given back instead of booked.
type SaleReversal int

const (
	// SaleNotHeld: the order's hold had ended (or the ticketing system refused the order).
	SaleNotHeld SaleReversal = iota + 1
	// SaleOrderChanged: the order's amount changed after the reader asked for it.
	SaleOrderChanged
	// SaleGivenUp: the device let go of the order as the card paid.
	SaleGivenUp
)

// SaleReversalOf says why the sale of a reversed entry was not booked.
func SaleReversalOf(e ledger.Entry) SaleReversal {
	switch {
	case strings.HasPrefix(e.LastError, whyGivenUpPaid):
		return SaleGivenUp
	case strings.HasPrefix(e.LastError, whyOrderChanged):
		return SaleOrderChanged
	}
	return SaleNotHeld
}
