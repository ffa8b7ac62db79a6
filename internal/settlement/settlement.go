// Package settlement owns the money of booking edits: the ledger's state machine that takes an
// edit's payment or refund from "created" to applied on the booking (or back to the customer),
// and the entry points that create those ledger entries. It is the only code that changes
// ledger state; the web layer reads the ledger to show it and calls in here to move money.
//
// It knows nothing of HTTP: every dependency (the ledger, the ticketing API, the payment
// provider, the clock, the logger) is passed in, so the reconciler, the provider's webhook and
// a customer's request all drive the same steps.
package settlement

import (
	"context"
	"log/slog"
	"time"

	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Ticketing is what settlement needs from the ticketing API: complete an edit with its money,
// read a booking to verify what it already carries, and keep an edit's hold alive.
type Ticketing interface {
	CompleteEditBooking(ctx context.Context, userSessionID string, r upstream.CompleteEdit) (upstream.EditCompletion, error)
	GetSingleBooking(ctx context.Context, cinemaID string, bookingNumber int64) (cinema.Booking, error)
	ResetOrderExpiry(ctx context.Context, userSessionID string) (upstream.ExpiryReset, error)
}

// Deps are a Settler's dependencies.
type Deps struct {
	Ticketing Ticketing
	Payments  upstream.Payments
	Ledger    *ledger.Store
	// BoxOffice is the register of money taken at the box office; nil: none is (no counter).
	BoxOffice *boxoffice.Register
	// Readers are the provider's card readers (card-present payments); nil: none.
	Readers upstream.CardReaders
	// Sales and SaleTicketing complete the orders sold on a card reader; nil: no such sales.
	Sales         Sales
	SaleTicketing SaleTicketing
	Logger        *slog.Logger
	// LoggerFrom returns the logger of the request ctx belongs to (with its request id), or
	// nil; Logger is used when it is nil or returns nil.
	LoggerFrom func(ctx context.Context) *slog.Logger
	Now        func() time.Time            // time.Now when nil
	ReturnURL  func(entryID string) string // where the provider sends the customer back
	Tender     string                      // paymentTenderCategory of the provider's payments
	// ReaderAnswerWait bounds how long stopping a card-reader payment waits for a reader that
	// is reading a card (0: 30 s).
	ReaderAnswerWait time.Duration
	// Words is the site's fallback language, for a step no request asked for (the payment's
	// description on the provider's page); a request's own language comes with its ctx.
	Words *i18n.Localizer
}

// Settler moves a ledger entry (an edit's payment or refund) through its steps: ask the
// provider, apply to the booking with complete-edit, or reverse the payment when the edit is
// gone. Every step is written to the ledger before and after; every state change is a
// compare-and-set, so the customer's own request, a second tab, the provider's webhook and the
// reconciler can all call Advance at once and each step still happens once.
type Settler struct {
	ticketing     Ticketing
	payments      upstream.Payments
	ledger        *ledger.Store
	boxOffice     *boxoffice.Register
	readers       upstream.CardReaders
	sales         Sales
	saleTicketing SaleTicketing
	logger        *slog.Logger
	loggerFrom    func(ctx context.Context) *slog.Logger
	now           func() time.Time
	returnURL     func(entryID string) string
	tender        string
	words         *i18n.Localizer
	answerWait    time.Duration
}

// New returns a Settler over d.
func New(d Deps) *Settler {
	st := &Settler{ticketing: d.Ticketing, payments: d.Payments, ledger: d.Ledger, boxOffice: d.BoxOffice, readers: d.Readers, sales: d.Sales, saleTicketing: d.SaleTicketing, logger: d.Logger, loggerFrom: d.LoggerFrom,
		now: d.Now, returnURL: d.ReturnURL, tender: d.Tender, words: d.Words, answerWait: d.ReaderAnswerWait}
	if st.logger == nil {
		st.logger = slog.Default()
	}
	if st.now == nil {
		st.now = time.Now
	}
	if st.answerWait <= 0 {
		st.answerWait = readerAnswerWait
	}
	return st
}

// log is the logger for work done for ctx: the request's own when there is one.
func (st *Settler) log(ctx context.Context) *slog.Logger {
	if st.loggerFrom != nil {
		if l := st.loggerFrom(ctx); l != nil {
			return l
		}
	}
	return st.logger
}
