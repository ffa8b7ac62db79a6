package contract

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

var hex32 = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestEditBookingStart(t *testing.T) {
	e := newEnv(t, envOptions{})
	ed, err := e.client.EditBooking(e.ctx, berlin, "BK0186A1")
	noErr(t, err)
	if !hex32.MatchString(ed.UserSessionID) || ed.CinemaID != berlin || ed.Expires.IsZero() {
		t.Fatalf("edit %+v", ed)
	}
	if len(ed.Lines) != 2 || len(ed.LinesIn(cinema.LineKept)) != 2 || ed.HasUnknown() || ed.HasChanges() {
		t.Errorf("lines %+v", ed.Lines)
	}
	l := ed.Lines[0]
	if l.TicketID == 0 || l.TypeCode != "0001" || l.FinalPrice.Cents != 1250 || l.SessionID != bigSession || len(l.Seats) != 1 || l.Seats[0].Name() != "F11" {
		t.Errorf("line %+v", l)
	}
	if len(ed.Fees) == 0 || ed.Fees[0].State != cinema.LineKept || ed.Fees[0].Price.Cents == 0 {
		t.Errorf("fees %+v", ed.Fees)
	}
	if !ed.Balance.IsZero() || !ed.ToPay().IsZero() || !ed.ToRefund().IsZero() || ed.Balance.Currency != "EUR" {
		t.Errorf("balance %v", ed.Balance)
	}
	if len(ed.Sessions) != 1 || ed.Sessions[0].FilmTitle == "" || len(ed.SuggestedDeals) == 0 {
		t.Errorf("sessions %+v deals %+v", ed.Sessions, ed.SuggestedDeals)
	}
	// The real wire does not say "being edited": a second edit is refused instead.
	_, err = e.client.EditBooking(e.ctx, berlin, "BK0186A1")
	if r, ok := upstream.EditRefusal(err); !ok || r != upstream.EditAlreadyInEdit {
		t.Errorf("second edit: %v", err)
	}

	// A fee rule changed since purchase: a balance at once, explained by the fees.
	fee, err := e.client.EditBooking(e.ctx, berlin, "BK0186B2")
	noErr(t, err)
	if fee.Balance.Cents <= 0 || fee.FeeBalance.Cents <= 0 || fee.ToPay() != fee.Balance {
		t.Errorf("fee change edit: balance %v fees %v", fee.Balance, fee.FeeBalance)
	}
}

func TestEditBookingRefusals(t *testing.T) {
	e := newEnv(t, envOptions{})
	tests := []struct {
		bookingID string
		want      upstream.EditRestriction
	}{
		{"BK0186AB", upstream.EditConcessions},
		{"BK0186AC", upstream.EditPackageTicket},
		{"BK0186AD", upstream.EditLoyaltyTicket},
		{"BK0186AE", upstream.EditVoucherTicket},
		{"BK0186AF", upstream.EditThirdPartyMemberTicket},
		{"BK0186B0", upstream.EditNonExternalPayment},
	}
	for _, tt := range tests {
		t.Run(string(tt.want), func(t *testing.T) {
			_, err := e.client.EditBooking(e.ctx, berlin, tt.bookingID)
			er := wantErr(t, err, upstream.ErrEditRefused)
			if r, ok := upstream.EditRefusal(err); !ok || r != tt.want {
				t.Errorf("restriction %q, want %q", r, tt.want)
			}
			if er.HTTPStatus != 400 || er.ExtendedResultCode != upstream.ExtEditRefused || er.Description == "" {
				t.Errorf("error %#v", er)
			}
		})
	}
	_, err := e.client.EditBooking(e.ctx, berlin, "BKNOPE00")
	wantErr(t, err, upstream.ErrNotFound)

	_, err = e.client.EditBooking(e.ctx, berlin, "BK0186A6")
	noErr(t, err)
	_, err = e.client.EditBooking(e.ctx, berlin, "BK0186A6")
	if r, ok := upstream.EditRefusal(err); !ok || r != upstream.EditAlreadyInEdit {
		t.Errorf("second edit: %v", err)
	}
}

func TestEditUnpaidBooking(t *testing.T) {
	e := newEnv(t, envOptions{})
	ed, err := e.client.EditBooking(e.ctx, berlin, "BK0186AA")
	noErr(t, err)
	o, err := e.client.AddTickets(e.ctx, upstream.AddTicketsRequest{UserSessionID: ed.UserSessionID, CinemaID: berlin, SessionID: bigSession,
		Tickets: []upstream.TicketRequest{{TypeCode: "0002"}}})
	noErr(t, err)
	if o.Total.Cents < 850 || len(o.Tickets()) < 1 {
		t.Errorf("edit order after AddTickets %+v", o)
	}
	// Seats may not be given with AddTickets in edit state.
	sp := e.plan(bigSession)
	_, err = e.client.AddTickets(e.ctx, upstream.AddTicketsRequest{UserSessionID: ed.UserSessionID, CinemaID: berlin, SessionID: bigSession,
		Tickets: []upstream.TicketRequest{{TypeCode: "0001"}}, Seats: selected(freeSeats(t, sp, "0000000001", 1)...)})
	wantErr(t, err, upstream.ErrInvalidRequest)
	// Operations not supported in edit state.
	_, err = e.client.ExternalPaymentStarting(e.ctx, upstream.ExternalPaymentRequest{UserSessionID: ed.UserSessionID, ReturnURL: "http://x"})
	er := wantErr(t, err, upstream.ErrInvalidRequest)
	if er.ExtendedResultCode != upstream.ExtNotInEditState {
		t.Errorf("error %#v", er)
	}
	_, err = e.client.ResetOrderExpiry(e.ctx, ed.UserSessionID)
	noErr(t, err)

	_, err = e.client.CompleteEditBooking(e.ctx, ed.UserSessionID, upstream.CompleteEditWithPayments(upstream.ExternalPayment{AmountCents: 100, ProviderReference: "pay_x", TenderCategory: "CREDITCARD"}))
	if r, _ := upstream.EditRefusal(err); r != upstream.EditUnpaidRequiresNoPayment {
		t.Errorf("unpaid with payments: %v", err)
	}
	res, err := e.client.CompleteEditBooking(e.ctx, ed.UserSessionID, upstream.CompleteEditUnpaid())
	noErr(t, err)
	if res.BookingNumber != 100010 || res.BookingID != "BK0186AA" {
		t.Errorf("completion %+v", res)
	}
	b, err := e.client.GetSingleBooking(e.ctx, berlin, 100010)
	noErr(t, err)
	if len(b.Tickets) != 3 || b.BeingEdited {
		t.Errorf("booking after edit %+v", b.Tickets)
	}
	_, err = e.client.GetOrder(e.ctx, ed.UserSessionID)
	wantErr(t, err, upstream.ErrNotFound)
}

func TestEditPaidBookingPositiveBalance(t *testing.T) {
	e := newEnv(t, envOptions{})
	ed, err := e.client.EditBooking(e.ctx, berlin, "BK0186A2")
	noErr(t, err)
	_, err = e.client.AddTickets(e.ctx, upstream.AddTicketsRequest{UserSessionID: ed.UserSessionID, CinemaID: berlin, SessionID: bigSession,
		Tickets: []upstream.TicketRequest{{TypeCode: "0001"}}})
	noErr(t, err)
	o, err := e.client.GetOrder(e.ctx, ed.UserSessionID)
	noErr(t, err)
	balance := o.Total
	if balance.Cents < 1250 {
		t.Fatalf("balance %v", balance)
	}

	_, err = e.client.CompleteEditBooking(e.ctx, ed.UserSessionID, upstream.CompleteEditUnpaid())
	if r, _ := upstream.EditRefusal(err); r != upstream.EditPaymentRequired {
		t.Fatalf("paid edit without payment: %v", err)
	}

	p, err := e.pay.CreatePayment(e.ctx, upstream.PaymentRequest{AmountCents: balance.Cents, Currency: balance.Currency, ReturnURL: "http://bff.example/edit", IdempotencyKey: ed.UserSessionID})
	noErr(t, err)
	e.decide(p.HostedURL, "pay")
	p, err = e.pay.GetPayment(e.ctx, p.ID)
	noErr(t, err)
	if p.Status != cinema.PaymentPaid {
		t.Fatalf("payment %+v", p)
	}
	if !strings.HasPrefix(p.ProviderReference, "pi_") || p.CardType == "" {
		t.Fatalf("paid checkout without its payment intent or card: %+v", p)
	}
	item := upstream.ExternalPayment{AmountCents: balance.Cents, ProviderReference: p.ProviderReference, TenderCategory: "CREDITCARD", CardNumberMasked: p.CardNumberMasked, CardType: p.CardType}

	wrong := item
	wrong.AmountCents--
	_, err = e.client.CompleteEditBooking(e.ctx, ed.UserSessionID, upstream.CompleteEditWithPayments(wrong))
	if r, _ := upstream.EditRefusal(err); r != upstream.EditAmountMismatch {
		t.Errorf("wrong amount: %v", err)
	}
	_, err = e.client.CompleteEditBooking(e.ctx, ed.UserSessionID, upstream.CompleteEditWithRefunds(item))
	if r, _ := upstream.EditRefusal(err); r != upstream.EditAmountMismatch {
		t.Errorf("refund for a positive balance: %v", err)
	}

	res, err := e.client.CompleteEditBooking(e.ctx, ed.UserSessionID, upstream.CompleteEditWithPayments(item))
	noErr(t, err)
	if res.BookingNumber != 100002 {
		t.Errorf("completion %+v", res)
	}
	b, err := e.client.GetSingleBooking(e.ctx, berlin, 100002)
	noErr(t, err)
	if len(b.Tickets) != 3 || len(b.Payments) != 2 || b.Payments[1].ProviderReference != p.ProviderReference {
		t.Errorf("booking after edit: tickets %+v payments %+v", b.Tickets, b.Payments)
	}
}

func TestEditPaidBookingNegativeBalance(t *testing.T) {
	e := newEnv(t, envOptions{})
	before, err := e.client.GetSingleBooking(e.ctx, berlin, 100004)
	noErr(t, err)
	ed, err := e.client.EditBooking(e.ctx, berlin, "BK0186A4")
	noErr(t, err)
	var senior cinema.EditLine
	for _, l := range ed.Lines {
		if l.TypeCode == "0003" {
			senior = l
		}
	}
	o, err := e.client.RemoveTickets(e.ctx, upstream.RemoveTicketsRequest{UserSessionID: ed.UserSessionID, SessionID: bigSession, TicketIDs: []string{strconv.FormatInt(senior.TicketID, 10)}})
	noErr(t, err)
	if o.Total.Cents >= 0 {
		t.Fatalf("balance after removing a ticket %v", o.Total)
	}
	refund := o.Total.Neg()

	_, err = e.client.CompleteEditBooking(e.ctx, ed.UserSessionID, upstream.CompleteEditUnpaid())
	er := wantErr(t, err, upstream.ErrEditRefused)
	if er.EditRestriction() != upstream.EditRefundRequired || er.ExtendedResultCode != upstream.ExtRefundRequired {
		t.Fatalf("paid edit without refund: %#v", er)
	}

	ref := before.Payments[0].ProviderReference
	rf, err := e.pay.Refund(e.ctx, ref, refund.Cents, ed.UserSessionID)
	noErr(t, err)
	res, err := e.client.CompleteEditBooking(e.ctx, ed.UserSessionID, upstream.CompleteEditWithRefunds(upstream.ExternalPayment{
		AmountCents: rf.Amount, ProviderReference: ref, TenderCategory: "CREDITCARD", CardNumberMasked: before.Payments[0].CardNumberMasked, CardType: before.Payments[0].CardType,
	}))
	noErr(t, err)
	if res.BookingID != "BK0186A4" {
		t.Errorf("completion %+v", res)
	}
	b, err := e.client.GetSingleBooking(e.ctx, berlin, 100004)
	noErr(t, err)
	if len(b.Tickets) != 2 || b.Total.Cents >= before.Total.Cents {
		t.Errorf("booking after edit %+v total %v (was %v)", b.Tickets, b.Total, before.Total)
	}
}

func TestEditCancelRestoresBooking(t *testing.T) {
	e := newEnv(t, envOptions{})
	ed, err := e.client.EditBooking(e.ctx, berlin, "BK0186A3")
	noErr(t, err)
	_, err = e.client.RemoveTickets(e.ctx, upstream.RemoveTicketsRequest{UserSessionID: ed.UserSessionID, SessionID: bigSession, TicketIDs: []string{strconv.FormatInt(ed.Lines[0].TicketID, 10)}})
	noErr(t, err)
	// Seats can be changed in edit state too.
	other := freeSeats(t, e.plan(bigSession), "0000000001", 1)
	_, err = e.client.SetSelectedSeats(e.ctx, upstream.SetSelectedSeatsRequest{UserSessionID: ed.UserSessionID, CinemaID: berlin, SessionID: bigSession, Seats: selected(other...)})
	noErr(t, err)
	noErr(t, e.client.CancelOrder(e.ctx, ed.UserSessionID))
	b, err := e.client.GetSingleBooking(e.ctx, berlin, 100003)
	noErr(t, err)
	if len(b.Tickets) != 2 || b.BeingEdited || b.Tickets[0].Seat.Name() != "G11" || b.Tickets[1].Seat.Name() != "G12" {
		t.Errorf("booking after cancel %+v", b)
	}
	_, err = e.client.GetOrder(e.ctx, ed.UserSessionID)
	wantErr(t, err, upstream.ErrNotFound)
	// And it can be edited again.
	_, err = e.client.EditBooking(e.ctx, berlin, "BK0186A3")
	noErr(t, err)
}
