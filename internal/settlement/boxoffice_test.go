package settlement_test

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/testenv"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func eur(c int64) cinema.Money { return cinema.Money{Cents: c, Currency: "EUR"} }

// provider is an upstream.Payments that knows some payments and records refunds. A refund
// made while answer is set has that status (the test changes it later in made); every
// request for a refund is counted in asked, by idempotency key.
type provider struct {
	mu       sync.Mutex
	known    map[string]upstream.Payment
	refunded map[string]int64
	answer   string
	made     map[string]*upstream.Refund
	asked    map[string]int
}

func (p *provider) CreatePayment(context.Context, upstream.PaymentRequest) (upstream.Payment, error) {
	return upstream.Payment{}, errors.New("not in this test")
}

func (p *provider) GetPayment(_ context.Context, id string) (upstream.Payment, error) {
	if pp, ok := p.known[id]; ok {
		return pp, nil
	}
	return upstream.Payment{}, &upstream.Error{Op: upstream.OpGetPayment, Kind: upstream.ErrNotFound}
}

func (p *provider) CancelPayment(ctx context.Context, id string) (upstream.Payment, error) {
	return p.GetPayment(ctx, id)
}

func (p *provider) Refund(_ context.Context, id string, cents int64, key string) (upstream.Refund, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked[key]++
	if r, ok := p.made["re_"+key]; ok {
		return *r, nil // the provider's idempotent replay: the first answer, as it was
	}
	p.refunded[id] += cents
	r := upstream.Refund{ID: "re_" + key, PaymentID: id, Amount: cents, Status: cmp.Or(p.answer, "succeeded")}
	p.made[r.ID] = &r
	return r, nil
}

func (p *provider) GetRefund(_ context.Context, id string) (upstream.Refund, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.made[id]; ok {
		return *r, nil
	}
	return upstream.Refund{}, &upstream.Error{Op: upstream.OpGetRefund, Kind: upstream.ErrNotFound}
}

func paid(id, booking string, cents int64) upstream.Payment {
	return upstream.Payment{ID: id, ProviderReference: id, Status: cinema.PaymentPaid, Amount: eur(cents), Booking: booking}
}

// ticketing is a settlement.Ticketing whose booking the test sets; complete-edit answers ok.
type ticketing struct {
	booking   cinema.Booking
	completed []upstream.CompleteEdit
	fail      error // complete-edit's answer when set
}

func (t *ticketing) CompleteEditBooking(_ context.Context, _ string, r upstream.CompleteEdit) (upstream.EditCompletion, error) {
	if t.fail != nil {
		return upstream.EditCompletion{}, t.fail
	}
	t.completed = append(t.completed, r)
	return upstream.EditCompletion{}, nil
}

func (t *ticketing) GetSingleBooking(context.Context, string, int64) (cinema.Booking, error) {
	return t.booking, nil
}

func (t *ticketing) ResetOrderExpiry(context.Context, string) (upstream.ExpiryReset, error) {
	return upstream.ExpiryReset{}, nil
}

type world struct {
	st        *settlement.Settler
	ledger    *ledger.Store
	register  *boxoffice.Register
	provider  *provider
	ticketing *ticketing
}

func worlds(t *testing.T) map[string]world {
	out := map[string]world{}
	for name, db := range testenv.MigratedDatabases(t) {
		w := world{ledger: ledger.New(db.SQL), register: boxoffice.New(db.SQL), ticketing: &ticketing{},
			provider: &provider{refunded: map[string]int64{}, made: map[string]*upstream.Refund{}, asked: map[string]int{}, known: map[string]upstream.Payment{
				"pi_own":     paid("pi_own", "0001/100017", 2650),
				"pi_seed3":   paid("pi_seed3", "", 2650),
				"pi_other17": paid("pi_other17", "0001/100003", 1325),
			}}}
		w.st = settlement.New(settlement.Deps{Ledger: w.ledger, BoxOffice: w.register, Payments: w.provider, Ticketing: w.ticketing, Tender: "CREDITCARD"})
		out[name] = w
	}
	return out
}

var clerk = settlement.Change{EditSessionID: "e1", CinemaID: "0001", BookingID: "BK17", BookingNumber: 100017, Notice: "{}", Actor: "anna", AtBoxOffice: true}

// TestCounterReferences: a terminal reference the provider knows as its payment is refused at
// entry; a reference recorded for one payment is refused for another; the same payment
// recorded again (a repeated press) is the same entry.
func TestCounterReferences(t *testing.T) {
	for name, w := range worlds(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			use := settlement.ReferenceUse{Amount: eur(1325), CinemaID: "0001", BookingNumber: 100017, EditSessionID: "e1"}
			if _, err := w.st.CheckCounterReference(ctx, " pi_seed3 ", use); !errors.Is(err, settlement.ErrProviderReference) {
				t.Errorf("another booking's provider payment as a terminal reference: %v, want ErrProviderReference", err)
			}
			if ref, err := w.st.CheckCounterReference(ctx, " TERM-0001 ", use); err != nil || ref != "TERM-0001" {
				t.Errorf("a terminal's own reference: %q %v", ref, err)
			}
			term := settlement.CounterPayment{Method: boxoffice.TenderTerminal, Tender: "CREDIT", Reference: "TERM-0001", CardType: "Card terminal"}
			first, recorded, err := w.st.RecordCounterPayment(ctx, clerk, eur(1325), term)
			if err != nil || !recorded || first.State != ledger.StatePaid {
				t.Fatalf("first: %+v %v %v", first, recorded, err)
			}
			if again, recorded, err := w.st.RecordCounterPayment(ctx, clerk, eur(1325), term); err != nil || recorded || again.ID != first.ID {
				t.Errorf("repeated press: %+v %v %v", again, recorded, err)
			}
			second := clerk
			second.EditSessionID = "e2"
			term.Reference = "term-0001"
			if _, _, err := w.st.RecordCounterPayment(ctx, second, eur(1325), term); !errors.Is(err, boxoffice.ErrReferenceUsed) {
				t.Errorf("the reference for a second payment: %v, want ErrReferenceUsed", err)
			}
			if list, _ := w.ledger.ForEdit(ctx, "e2"); len(list) != 0 {
				t.Errorf("the refused payment was written to the ledger: %+v", list)
			}
		})
	}
}

// TestRefundsGoBackTheWayTheyCame: a refund of a booking paid online and at the box office
// goes to the provider only for the provider's own payments of this booking; a box office
// payment is never refunded through the provider (even under a provider payment's id), and
// away from a box office a refund that needs it is refused.
func TestRefundsGoBackTheWayTheyCame(t *testing.T) {
	booking := func() cinema.Booking {
		return cinema.Booking{CinemaID: "0001", Number: 100017, Payments: []cinema.BookingPayment{
			{Amount: eur(2650), ProviderReference: "pi_own", TenderCategory: "CREDITCARD"},
			{Amount: eur(1325), ProviderReference: "pi_other17", TenderCategory: "CREDITCARD"}, // the provider says: 100003's
			{Amount: eur(1325), ProviderReference: "pi_seed3", TenderCategory: "CREDIT"},       // taken at the counter under a borrowed id
		}}
	}
	tests := []struct {
		name      string
		change    settlement.Change
		amount    int64
		wantErr   error
		wantParts map[string]bool // reference → at the box office
	}{
		{"at the counter: the box office payment first (the newest), then the provider's own", clerk, 2000,
			nil, map[string]bool{"pi_seed3": true, "pi_own": false}},
		{"online: only the provider's own payment", withoutCounter(clerk), 2000, nil, map[string]bool{"pi_own": false}},
		{"online, more than the provider's own payment: ask at the box office", withoutCounter(clerk), 3000, settlement.ErrRefundAtBoxOffice, nil},
	}
	for name, w := range worlds(t) {
		ctx := context.Background()
		if _, err := w.register.Record(ctx, boxoffice.Payment{Reference: "pi_seed3", Tender: boxoffice.TenderTerminal, AmountCents: 1325,
			Currency: "EUR", CinemaID: "0001", BookingNumber: 100017, Owner: "edit-counter:old:1325", Actor: "mallory"}); err != nil {
			t.Fatal(err)
		}
		for i, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				c := tt.change
				c.EditSessionID = "refund" + string(rune('a'+i))
				w.ticketing.booking = booking()
				parts, err := w.st.StartRefund(ctx, c, eur(tt.amount), w.ticketing.booking)
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				got := map[string]bool{}
				for _, p := range parts {
					got[p.ProviderPaymentID] = p.AtBoxOffice()
				}
				if len(got) != len(tt.wantParts) {
					t.Fatalf("parts %v, want %v", got, tt.wantParts)
				}
				for ref, atBox := range tt.wantParts {
					if b, ok := got[ref]; !ok || b != atBox {
						t.Errorf("part on %s: present %v, at the box office %v; want at the box office %v", ref, ok, b, atBox)
					}
				}
				for _, p := range parts {
					if _, err := w.st.Advance(ctx, p.ID); err != nil {
						t.Errorf("advance %s: %v", p.ProviderPaymentID, err)
					}
				}
				w.provider.mu.Lock()
				defer w.provider.mu.Unlock()
				for ref, cents := range w.provider.refunded {
					if ref != "pi_own" && cents != 0 {
						t.Errorf("%d cents refunded through the provider on %s", cents, ref)
					}
				}
			})
		}
	}
}

func withoutCounter(c settlement.Change) settlement.Change {
	c.AtBoxOffice, c.Actor = false, ""
	return c
}

// TestGiveBackAtBoxOffice: a box office part waits until the clerk hands it back; then the
// change is completed with every part, the box office's under its own tender.
func TestGiveBackAtBoxOffice(t *testing.T) {
	for name, w := range worlds(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if _, err := w.register.Record(ctx, boxoffice.Payment{Reference: "CASH-1", Tender: boxoffice.TenderCash, AmountCents: 900,
				Currency: "EUR", CinemaID: "0001", BookingNumber: 100017, Owner: "o", Actor: "anna"}); err != nil {
				t.Fatal(err)
			}
			w.ticketing.booking = cinema.Booking{CinemaID: "0001", Number: 100017, Payments: []cinema.BookingPayment{
				{Amount: eur(2650), ProviderReference: "pi_own"}, {Amount: eur(900), ProviderReference: "CASH-1", TenderCategory: "CASH"}}}
			parts, err := w.st.StartRefund(ctx, clerk, eur(1200), w.ticketing.booking)
			if err != nil || len(parts) != 2 || !parts[0].AtBoxOffice() || parts[0].AmountCents != 900 || parts[0].CardType != "Cash" {
				t.Fatalf("parts %+v, %v", parts, err)
			}
			if _, err := w.st.AdvanceGroup(ctx, parts[0]); err != nil {
				t.Fatal(err)
			}
			if cash, _ := w.ledger.Get(ctx, parts[0].ID); cash.State != ledger.StateCreated || len(w.ticketing.completed) != 0 {
				t.Fatalf("before the clerk handed it back: cash part %s, %d complete-edits", cash.State, len(w.ticketing.completed))
			}
			if _, err := w.st.GiveBackAtBoxOffice(ctx, parts[1].ID, "anna"); !errors.Is(err, settlement.ErrNotAtBoxOffice) {
				t.Errorf("the provider's part handed back at the counter: %v", err)
			}
			if _, err := w.st.GiveBackAtBoxOffice(ctx, parts[0].ID, "anna"); err != nil {
				t.Fatal(err)
			}
			after, err := w.st.AdvanceGroup(ctx, parts[0])
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range after {
				if p.State != ledger.StateApplied {
					t.Errorf("part %s is %s, want applied", p.ProviderPaymentID, p.State)
				}
			}
			if len(w.ticketing.completed) != 1 || len(w.ticketing.completed[0].Refunds) != 2 {
				t.Fatalf("complete-edit calls %+v, want one with both parts", w.ticketing.completed)
			}
			for _, r := range w.ticketing.completed[0].Refunds {
				cash := r.TenderCategory == "CASH" && r.AmountCents == 900 && strings.HasPrefix(r.ProviderReference, "BO-")
				card := r.TenderCategory == "CREDITCARD" && r.AmountCents == 300 && strings.HasPrefix(r.ProviderReference, "re_")
				if !cash && !card {
					t.Errorf("refund item %+v: neither the cash given back nor the provider's refund", r)
				}
			}
			if n := w.provider.refunded["CASH-1"]; n != 0 {
				t.Errorf("%d cents of cash refunded through the provider", n)
			}
		})
	}
}

// TestAppliedMeansThisPayment: a payment whose complete-edit failed is "found on the booking"
// only when the booking carries a payment with its reference and amount that no other entry
// accounts for. A reference reused from an earlier, applied payment (a register not yet there)
// is not this payment: the money goes to staff review, not "applied". The reference with
// another amount is unclear: staff review too.
func TestAppliedMeansThisPayment(t *testing.T) {
	for name, w := range worlds(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := settlement.New(settlement.Deps{Ledger: w.ledger, Payments: w.provider, Ticketing: w.ticketing}) // no register: old data
			term := settlement.CounterPayment{Method: boxoffice.TenderTerminal, Tender: "CREDIT", Reference: "TERM-0001", CardType: "Card terminal"}
			first, _, err := st.RecordCounterPayment(ctx, clerk, eur(1325), term)
			if err != nil {
				t.Fatal(err)
			}
			if first, err = st.Advance(ctx, first.ID); err != nil || first.State != ledger.StateApplied {
				t.Fatalf("first payment: %+v, %v", first, err)
			}
			w.ticketing.booking = cinema.Booking{CinemaID: "0001", Number: 100017, Payments: []cinema.BookingPayment{
				{Amount: eur(1325), ProviderReference: "TERM-0001"}, {Amount: eur(999), ProviderReference: "TERM-0002"}}}
			w.ticketing.fail = &upstream.Error{Op: upstream.OpCompleteEditBooking, Kind: upstream.ErrEditRefused}
			for _, tc := range []struct{ edit, ref string }{{"e2", "TERM-0001"}, {"e3", "TERM-0002"}} {
				c := clerk
				c.EditSessionID = tc.edit
				term.Reference = tc.ref
				e, _, err := st.RecordCounterPayment(ctx, c, eur(1325), term)
				if err != nil {
					t.Fatal(err)
				}
				if e, _ = st.Advance(ctx, e.ID); e.State != ledger.StateFailed {
					t.Errorf("%s: a payment the change did not take ended %s, want failed for staff review", tc.ref, e.State)
				}
			}
			review, err := w.ledger.NeedingReview(ctx, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(review) != 2 {
				t.Errorf("%d entries for staff review, want both", len(review))
			}
		})
	}
}
