package settlement_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// counter is a card reader and its card-present payment at the provider, as a test scripts
// them: the reader's action, and the payment's status each cancel finds (the last one stays).
type counter struct {
	mu        sync.Mutex
	action    upstream.ReaderAction
	startErr  error  // StartReaderPayment's answer
	onStart   func() // runs inside StartReaderPayment, before it answers
	cancels   []cinema.PaymentStatus
	status    cinema.PaymentStatus
	stopped   int // CancelReaderAction calls
	cancelled int // CancelPayment calls
	refunded  map[string]int64
}

func (c *counter) payment() upstream.Payment {
	return upstream.Payment{ID: "pi_r", ProviderReference: "pi_r", Status: c.status, Amount: cinema.Money{Cents: 2650, Currency: "EUR"}}
}

func (c *counter) CreatePayment(context.Context, upstream.PaymentRequest) (upstream.Payment, error) {
	return upstream.Payment{}, errors.New("not in this test")
}

func (c *counter) GetPayment(context.Context, string) (upstream.Payment, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.payment(), nil
}

func (c *counter) CancelPayment(context.Context, string) (upstream.Payment, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancelled++
	if len(c.cancels) > 0 {
		c.status, c.cancels = c.cancels[0], c.cancels[1:]
	}
	return c.payment(), nil
}

func (c *counter) Refund(_ context.Context, id string, cents int64, key string) (upstream.Refund, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refunded[id] += cents
	return upstream.Refund{ID: "re_" + key, PaymentID: id, Amount: cents, Status: "succeeded"}, nil
}

func (c *counter) GetRefund(_ context.Context, id string) (upstream.Refund, error) {
	return upstream.Refund{ID: id, Status: "succeeded"}, nil
}

func (c *counter) Mode() string                                           { return "test" }
func (c *counter) ListReaders(context.Context) ([]upstream.Reader, error) { return nil, nil }
func (c *counter) RegisterReader(context.Context, string, string, string) (upstream.Reader, error) {
	return upstream.Reader{}, nil
}
func (c *counter) EnsureLocation(context.Context, string, string) (string, error) { return "", nil }

func (c *counter) GetReader(context.Context, string) (upstream.Reader, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return upstream.Reader{ID: "tmr_1", Online: true, Action: c.action}, nil
}

func (c *counter) StartReaderPayment(context.Context, upstream.ReaderPaymentRequest) (upstream.Payment, error) {
	if c.onStart != nil {
		c.onStart()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.startErr != nil {
		return c.payment(), c.startErr
	}
	c.action = upstream.ReaderAction{State: upstream.ReaderInProgress, PaymentID: "pi_r", AmountCents: 2650}
	return c.payment(), nil
}

func (c *counter) CancelReaderAction(context.Context, string) (upstream.Reader, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped++
	c.action = upstream.ReaderAction{}
	return upstream.Reader{ID: "tmr_1", Online: true}, nil
}

// readerSale writes a kiosk sale of 26.50 on tmr_1 and, unless created is set, hands it to the
// reader (redirected, the reader asking for pi_r).
func readerSale(t *testing.T, w world, st *settlement.Settler, key string, created bool) ledger.Entry {
	t.Helper()
	ctx := context.Background()
	e, _, err := w.ledger.Create(ctx, ledger.Entry{Kind: ledger.KindSale, IdempotencyKey: key, AmountCents: 2650, Currency: "EUR",
		CinemaID: "0001", EditSessionID: "order-" + key, ReaderID: "tmr_1", Tender: "CREDIT"})
	if err != nil {
		t.Fatal(err)
	}
	if created {
		return e
	}
	e, err = st.Advance(ctx, e.ID)
	if err != nil || e.State != ledger.StateRedirected || e.ProviderPaymentID != "pi_r" {
		t.Fatalf("the sale handed to the reader: %s %v", e.State, err)
	}
	return e
}

func newCounter() *counter {
	return &counter{status: cinema.PaymentPending, refunded: map[string]int64{}}
}

// TestAbandonAtReader: an order the device lets go of while its reader asks. Nothing paid: the
// reader stops, the payment is cancelled, the entry ends with nothing taken. A card paid at that
// moment: the entry says the order was given up and the money goes straight back to that
// payment. A card being read: its answer is awaited, and decides.
func TestAbandonAtReader(t *testing.T) {
	for _, tc := range []struct {
		name        string
		cancels     []cinema.PaymentStatus // what each cancel finds
		want        ledger.State
		wantRefund  int64
		wantEnd     settlement.ReaderEnd
		wantGivenUp bool
	}{
		{name: "nothing paid", cancels: []cinema.PaymentStatus{cinema.PaymentCancelled}, want: ledger.StateFailed, wantEnd: settlement.ReaderCancelled},
		{name: "paid at that moment", cancels: []cinema.PaymentStatus{cinema.PaymentPaid}, want: ledger.StateRefunded, wantRefund: 2650, wantGivenUp: true},
		{name: "card being read, then declined", cancels: []cinema.PaymentStatus{cinema.PaymentPending, cinema.PaymentPending, cinema.PaymentCancelled},
			want: ledger.StateFailed, wantEnd: settlement.ReaderCancelled},
		{name: "card being read, then paid", cancels: []cinema.PaymentStatus{cinema.PaymentPending, cinema.PaymentPaid}, want: ledger.StateRefunded,
			wantRefund: 2650, wantGivenUp: true},
	} {
		for name, w := range worlds(t) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				c := newCounter()
				st := settlement.New(settlement.Deps{Ledger: w.ledger, Payments: c, Readers: c, Ticketing: w.ticketing,
					Sales: &buyers{completed: map[string]int64{}}, SaleTicketing: &orders{}})
				e := readerSale(t, w, st, "abandon-"+tc.name, false)
				c.cancels = tc.cancels
				got, err := st.AbandonAtReader(ctx, e.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.State != tc.want || c.refunded["pi_r"] != tc.wantRefund || c.stopped != 1 {
					t.Fatalf("entry %s (%s), refunded %d, reader stopped %d times; want %s, %d, once", got.State, got.LastError, c.refunded["pi_r"], c.stopped, tc.want, tc.wantRefund)
				}
				if tc.wantGivenUp && settlement.SaleReversalOf(got) != settlement.SaleGivenUp {
					t.Errorf("the reversed sale does not say it was given up: %q", got.LastError)
				}
				if tc.wantEnd != 0 && settlement.ReaderEndOf(got) != tc.wantEnd {
					t.Errorf("the ended payment reads as %v (%q), want %v", settlement.ReaderEndOf(got), got.LastError, tc.wantEnd)
				}
			})
		}
	}
}

// TestStopAtReaderNeverGuessesAnAnswer: a reader that keeps reading a card past the wait leaves
// the entry as it is (ErrReaderReading): neither failed, which would lose a payment that then
// succeeds, nor paid.
func TestStopAtReaderNeverGuessesAnAnswer(t *testing.T) {
	for name, w := range worlds(t) {
		t.Run(name, func(t *testing.T) {
			c := newCounter()
			st := settlement.New(settlement.Deps{Ledger: w.ledger, Payments: c, Readers: c, Ticketing: w.ticketing,
				Sales: &buyers{completed: map[string]int64{}}, SaleTicketing: &orders{}, ReaderAnswerWait: 700 * time.Millisecond})
			e := readerSale(t, w, st, "reading", false)
			got, err := st.StopAtReader(context.Background(), e.ID, settlement.StopGivenUp)
			if !errors.Is(err, settlement.ErrReaderReading) || got.State != ledger.StateRedirected || c.cancelled < 2 {
				t.Fatalf("a card read past the wait: %s %v after %d cancels", got.State, err, c.cancelled)
			}
			c.mu.Lock()
			c.status = cinema.PaymentPaid // the reader answers after all
			c.mu.Unlock()
			if got, err := st.AbandonAtReader(context.Background(), e.ID); err != nil || got.State != ledger.StateRefunded || c.refunded["pi_r"] != 2650 {
				t.Fatalf("its answer, paid, once the order is given up: %s %v, refunded %d", got.State, err, c.refunded["pi_r"])
			}
		})
	}
}

// TestReaderOutcomesAreToldApart: each way a card-reader payment ends with nothing taken keeps
// its own reason in the ledger: the card declined, the customer's Cancel on the reader, another
// payment on the reader, the reader reset, a busy or offline reader at the start.
func TestReaderOutcomesAreToldApart(t *testing.T) {
	busy := &upstream.Error{Op: upstream.OpStartReaderPayment, Kind: upstream.ErrReaderBusy}
	offline := &upstream.Error{Op: upstream.OpStartReaderPayment, Kind: upstream.ErrReaderOffline}
	for _, tc := range []struct {
		name     string
		startErr error
		action   upstream.ReaderAction // what the reader does once it has the payment
		want     settlement.ReaderEnd
	}{
		{name: "declined", action: upstream.ReaderAction{State: upstream.ReaderFailed, PaymentID: "pi_r", FailureCode: "card_declined"}, want: settlement.ReaderDeclined},
		{name: "customer's cancel", action: upstream.ReaderAction{State: upstream.ReaderFailed, PaymentID: "pi_r", FailureCode: "customer_canceled", Cancelled: true},
			want: settlement.ReaderCancelledOnReader},
		{name: "moved on", action: upstream.ReaderAction{State: upstream.ReaderInProgress, PaymentID: "pi_other"}, want: settlement.ReaderBusy},
		{name: "reset", action: upstream.ReaderAction{}, want: settlement.ReaderStopped},
		{name: "busy at the start", startErr: busy, want: settlement.ReaderBusy},
		{name: "offline at the start", startErr: offline, want: settlement.ReaderOffline},
	} {
		for name, w := range worlds(t) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				c := newCounter()
				c.startErr = tc.startErr
				c.cancels = []cinema.PaymentStatus{cinema.PaymentCancelled}
				st := settlement.New(settlement.Deps{Ledger: w.ledger, Payments: c, Readers: c, Ticketing: w.ticketing,
					Sales: &buyers{completed: map[string]int64{}}, SaleTicketing: &orders{}})
				e := readerSale(t, w, st, "told-"+tc.name, true)
				e, _ = st.Advance(ctx, e.ID)
				if tc.startErr == nil {
					c.mu.Lock()
					c.action = tc.action
					c.mu.Unlock()
					e, _ = st.Advance(ctx, e.ID)
				}
				if e.State != ledger.StateFailed || settlement.ReaderEndOf(e) != tc.want {
					t.Fatalf("entry %s %q reads as %v, want %v", e.State, e.LastError, settlement.ReaderEndOf(e), tc.want)
				}
			})
		}
	}
}

// TestPaymentStoppedWhileHandedToTheReader: a payment stopped while it is being handed to the
// reader (Start over in that instant) is taken back: the reader stops asking for it and it is
// cancelled at the provider, so a card presented afterwards pays nothing.
func TestPaymentStoppedWhileHandedToTheReader(t *testing.T) {
	for name, w := range worlds(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c := newCounter()
			st := settlement.New(settlement.Deps{Ledger: w.ledger, Payments: c, Readers: c, Ticketing: w.ticketing,
				Sales: &buyers{completed: map[string]int64{}}, SaleTicketing: &orders{}})
			e := readerSale(t, w, st, "handed", true)
			c.cancels = []cinema.PaymentStatus{cinema.PaymentCancelled}
			defer func() {
				if review, _ := w.ledger.NeedingReview(ctx, 3); len(review) != 0 {
					t.Errorf("a payment cancelled with nothing taken is on Needs attention: %+v", review)
				}
			}()
			c.onStart = func() {
				if got, err := st.StopAtReader(ctx, e.ID, settlement.StopGivenUp); err != nil || got.State != ledger.StateFailed {
					t.Errorf("stopped before the reader asked: %s %v", got.State, err)
				}
			}
			got, _ := st.Advance(ctx, e.ID)
			c.mu.Lock()
			defer c.mu.Unlock()
			if got.State != ledger.StateFailed || c.action.State != upstream.ReaderIdle || c.status != cinema.PaymentCancelled || c.stopped != 1 {
				t.Fatalf("entry %s; the reader %+v, the payment %v, stopped %d times", got.State, c.action, c.status, c.stopped)
			}
		})
	}
}

// TestCardReadAsThePaymentWasStoppedIsReviewed: the payment handed to the reader was stopped
// in that instant, and the provider's cancel finds a card being read (or cannot cancel it): the
// entry has ended, so nothing would follow the card's answer; it goes on staff's Needs
// attention with its payment. A card that paid in that instant is given straight back.
func TestCardReadAsThePaymentWasStoppedIsReviewed(t *testing.T) {
	for _, tc := range []struct {
		found      cinema.PaymentStatus
		wantReview bool
		wantRefund int64
	}{
		{cinema.PaymentPending, true, 0},
		{cinema.PaymentPaid, false, 2650},
	} {
		for name, w := range worlds(t) {
			t.Run(fmt.Sprint(tc.found)+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				c := newCounter()
				st := settlement.New(settlement.Deps{Ledger: w.ledger, Payments: c, Readers: c, Ticketing: w.ticketing,
					Sales: &buyers{completed: map[string]int64{}}, SaleTicketing: &orders{}})
				e := readerSale(t, w, st, "read", true)
				c.cancels = []cinema.PaymentStatus{tc.found}
				c.onStart = func() { _, _ = st.StopAtReader(ctx, e.ID, settlement.StopGivenUp) }
				if got, _ := st.Advance(ctx, e.ID); got.State != ledger.StateFailed {
					t.Fatalf("the stopped entry: %s", got.State)
				}
				review, err := w.ledger.NeedingReview(ctx, 3)
				if err != nil {
					t.Fatal(err)
				}
				onList := len(review) == 1 && review[0].ID == e.ID && review[0].ProviderPaymentID == "pi_r"
				if onList != tc.wantReview || c.refunded["pi_r"] != tc.wantRefund {
					t.Fatalf("Needs attention %+v (want the entry with its payment: %v), refunded %d (want %d)", review, tc.wantReview, c.refunded["pi_r"], tc.wantRefund)
				}
			})
		}
	}
}
