package settlement_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// tapped is a card-present payment (a card held to a reader or terminal) the provider says
// was paid.
func tapped(id, booking string, amount cinema.Money) upstream.Payment {
	return upstream.Payment{ID: id, ProviderReference: id, Status: cinema.PaymentPaid, Amount: amount, Booking: booking, CardPresent: true,
		Refunded: cinema.Money{Currency: amount.Currency}}
}

// downProvider is a provider that cannot be asked about one payment.
type downProvider struct {
	*provider
	down string
}

func (d downProvider) GetPayment(ctx context.Context, id string) (upstream.Payment, error) {
	if id == d.down {
		return upstream.Payment{}, &upstream.Error{Op: upstream.OpGetPayment, Kind: upstream.ErrUnavailable}
	}
	return d.provider.GetPayment(ctx, id)
}

// TestCounterReferenceNamingAProviderPayment: a terminal reference that names a payment of the
// provider (a charge or an intent, as a receipt prints it) is accepted only as a card-present
// payment that was paid, is not refunded, is of the amount taken and belongs to no other
// booking nor to another entry of the ledger; it is recorded under its payment intent. Every
// other such reference is refused with why; a provider that cannot be asked refuses it too.
func TestCounterReferenceNamingAProviderPayment(t *testing.T) {
	change := settlement.ReferenceUse{Amount: eur(1325), CinemaID: "0001", BookingNumber: 100017, EditSessionID: "e1"}
	sale := settlement.ReferenceUse{Amount: eur(1325), CinemaID: "0001"}
	refunded := tapped("pi_given_back", "", eur(1325))
	refunded.Refunded, refunded.Status = eur(1325), cinema.PaymentRefunded
	pending := tapped("pi_pending", "", eur(1325))
	pending.Status = cinema.PaymentPending
	known := map[string]upstream.Payment{
		"pi_term":        tapped("pi_term", "", eur(1325)),
		"ch_term":        tapped("pi_term", "", eur(1325)), // the charge of pi_term: read as its intent
		"pi_this":        tapped("pi_this", "0001/100017", eur(1325)),
		"ch_other":       tapped("pi_other", "0001/100003", eur(1325)),
		"pi_sold":        tapped("pi_sold", "", eur(1325)), // a reader sale's, in the ledger
		"pi_given_back":  refunded,
		"pi_pending":     pending,
		"pi_more":        tapped("pi_more", "", eur(2650)),
		"pi_pounds":      tapped("pi_pounds", "", cinema.Money{Cents: 1325, Currency: "GBP"}),
		"ch_online":      paid("pi_online", "0001/100003", 1325),
		"cs_someone":     paid("cs_someone", "", 1325),
		"pi_lower_cents": tapped("pi_lower_cents", "", eur(1300)),
	}
	cases := []struct {
		name, ref string
		use       settlement.ReferenceUse
		want      settlement.ReferenceProblem // "": accepted
		recorded  string                      // the reference to record when accepted
	}{
		{"a card-present intent of nobody", "pi_term", change, "", "pi_term"},
		{"its charge, recorded as the intent", " ch_term ", change, "", "pi_term"},
		{"taken for this very booking", "pi_this", change, "", "pi_this"},
		{"for a sale", "ch_term", sale, "", "pi_term"},
		{"another booking's charge", "ch_other", change, settlement.RefTaken, ""},
		{"a booking's payment for a sale", "pi_this", sale, settlement.RefTaken, ""},
		{"a reader sale of ours", "pi_sold", change, settlement.RefTaken, ""},
		{"an online payment's charge", "ch_online", change, settlement.RefOnline, ""},
		{"given back", "pi_given_back", change, settlement.RefNotPaid, ""},
		{"not paid", "pi_pending", change, settlement.RefNotPaid, ""},
		{"of more", "pi_more", change, settlement.RefAmount, ""},
		{"of less", "pi_lower_cents", change, settlement.RefAmount, ""},
		{"in pounds", "pi_pounds", change, settlement.RefAmount, ""},
		{"a charge the provider does not have", "ch_3NoSuchCharge", change, settlement.RefUnknown, ""},
		{"typed in capitals", "CH_TERM", change, settlement.RefUnknown, ""},
		{"the provider cannot be asked", "pi_down", change, settlement.RefUnchecked, ""},
		{"an online session's id", "cs_someone", change, settlement.RefOnline, ""},
		{"the terminal's own", "TERM-77", change, "", "TERM-77"},
	}
	for name, w := range worlds(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			for id, p := range known {
				w.provider.known[id] = p
			}
			st := settlement.New(settlement.Deps{Ledger: w.ledger, BoxOffice: w.register, Payments: downProvider{w.provider, "pi_down"}, Ticketing: w.ticketing})
			sold, _, err := w.ledger.Create(ctx, ledger.Entry{Kind: ledger.KindSale, IdempotencyKey: "sale-reader:o1:1325:0", AmountCents: 1325, Currency: "EUR",
				CinemaID: "0001", EditSessionID: "o1", ReaderID: "tmr_1", ProviderPaymentID: "pi_sold"})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				ref, err := st.CheckCounterReference(ctx, c.ref, c.use)
				var refused *settlement.ReferenceError
				switch {
				case c.want == "" && (err != nil || ref != c.recorded):
					t.Errorf("%s (%q): %q %v, want it accepted as %q", c.name, c.ref, ref, err, c.recorded)
				case c.want != "" && (!errors.As(err, &refused) || refused.Problem != c.want || !errors.Is(err, settlement.ErrProviderReference)):
					t.Errorf("%s (%q): %v, want refused as %s", c.name, c.ref, err, c.want)
				}
			}
			if sold.ProviderPaymentID != "pi_sold" {
				t.Fatalf("the sale's entry: %+v", sold)
			}
		})
	}
}

// TestCounterReferenceOfThisPaymentPressedAgain: recording a card-present payment at the
// counter and pressing again finds the same entry; the same payment for another change is
// refused as taken, whether typed as its intent or its charge.
func TestCounterReferenceOfThisPaymentPressedAgain(t *testing.T) {
	for name, w := range worlds(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			w.provider.known["pi_term"] = tapped("pi_term", "", eur(1325))
			w.provider.known["ch_term"] = tapped("pi_term", "", eur(1325))
			use := settlement.ReferenceUse{Amount: eur(1325), CinemaID: "0001", BookingNumber: 100017, EditSessionID: "e1"}
			ref, err := w.st.CheckCounterReference(ctx, "ch_term", use)
			if err != nil {
				t.Fatal(err)
			}
			term := settlement.CounterPayment{Method: "terminal", Tender: "CREDIT", Reference: ref, CardType: "Card terminal"}
			first, recorded, err := w.st.RecordCounterPayment(ctx, clerk, eur(1325), term)
			if err != nil || !recorded {
				t.Fatalf("record: %+v %v %v", first, recorded, err)
			}
			if again, err := w.st.CheckCounterReference(ctx, "pi_term", use); err != nil || again != "pi_term" {
				t.Errorf("the same change pressed again: %q %v", again, err)
			}
			other := use
			other.EditSessionID, other.BookingNumber = "e9", 100003
			for _, typed := range []string{"pi_term", "ch_term"} {
				var refused *settlement.ReferenceError
				if _, err := w.st.CheckCounterReference(ctx, typed, other); !errors.As(err, &refused) || refused.Problem != settlement.RefTaken {
					t.Errorf("%s for another booking's change: %v, want taken", typed, err)
				}
			}
		})
	}
}
