package cinema

import (
	"math"
	"testing"
	"time"
)

func TestMoneyString(t *testing.T) {
	tests := []struct {
		m    Money
		want string
	}{
		{Money{1250, "EUR"}, "12,50\u00a0€"},
		{Money{-300, "EUR"}, "-3,00\u00a0€"},
		{Money{5, "EUR"}, "0,05\u00a0€"},
		{Money{0, "EUR"}, "0,00\u00a0€"},
		{Money{123456789, "EUR"}, "1.234.567,89\u00a0€"},
		{Money{1250, "GBP"}, "£12.50"},
		{Money{-300, "USD"}, "-$3.00"},
		{Money{1250, "JPY"}, "¥1,250"},
		{Money{1250, "XYZ"}, "12.50\u00a0XYZ"},
		{Money{1250, "eur"}, "12,50\u00a0€"},
		{Money{math.MinInt64, "USD"}, "-$92,233,720,368,547,758.08"},
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.m, got, tt.want)
		}
	}
}

func TestMoneyFormatLocale(t *testing.T) {
	tests := []struct {
		m      Money
		locale string
		want   string
	}{
		{Money{1250, "EUR"}, "de-DE", "12,50\u00a0€"},
		{Money{1250, "EUR"}, "en-IE", "€12.50"},
		{Money{123456, "EUR"}, "fr_FR", "1 234,56\u00a0€"},
		{Money{1250, "GBP"}, "en-GB", "£12.50"},
		{Money{1250, "EUR"}, "xx", "12,50\u00a0€"},
	}
	for _, tt := range tests {
		if got := tt.m.Format(tt.locale); got != tt.want {
			t.Errorf("%v.Format(%q) = %q, want %q", tt.m, tt.locale, got, tt.want)
		}
	}
}

func TestMoneyArithmetic(t *testing.T) {
	a, b := NewMoney(1250, "EUR"), NewMoney(300, "EUR")
	if a.Add(b) != NewMoney(1550, "EUR") || a.Sub(b) != NewMoney(950, "EUR") || b.Sub(a).Abs() != NewMoney(950, "EUR") || a.Mul(3).Cents != 3750 {
		t.Error("arithmetic")
	}
	if (Money{}).Add(b).Currency != "EUR" || !b.Neg().IsNegative() || !b.IsPositive() || !(Money{}).IsZero() {
		t.Error("currency or sign")
	}
	if MinorDigits("JPY") != 0 || MinorDigits("EUR") != 2 || MinorDigits("???") != 2 {
		t.Error("minor digits")
	}
}

func TestEditOrderToPayToRefund(t *testing.T) {
	tests := []struct {
		balance         int64
		toPay, toRefund int64
	}{
		{1250, 1250, 0}, {-800, 0, 800}, {0, 0, 0},
	}
	for _, tt := range tests {
		e := EditOrder{Balance: NewMoney(tt.balance, "EUR")}
		if e.ToPay() != NewMoney(tt.toPay, "EUR") || e.ToRefund() != NewMoney(tt.toRefund, "EUR") {
			t.Errorf("balance %d: to pay %v, to refund %v", tt.balance, e.ToPay(), e.ToRefund())
		}
	}
}

func TestEnumStrings(t *testing.T) {
	if LineAdded.String() != "added" || LineState(99).String() != "unknown" || LineUnknown.String() != "unknown" {
		t.Error("line state")
	}
	if PaymentPaid.String() != "paid" || PaymentStatus(-1).String() != "unknown" || PaymentUnknown.Final() || !PaymentDeclined.Failed() {
		t.Error("payment status")
	}
	if SeatKindWheelchair.String() != "wheelchair" || SeatHeld.String() != "held" || SeatAvailability(9).String() != "unknown" {
		t.Error("seat enums")
	}
	if PrintReceipt.String() != "receipt" || PrintDocType(9).String() != "unknown" {
		t.Error("print doc type")
	}
}

func TestBookingRestrictions(t *testing.T) {
	b := Booking{Paid: false, PaidKnown: true, InSeatDelivery: true, Payments: []BookingPayment{{External: false, ExternalKnown: true}}}
	if r := b.SwapRestrictions(); len(r) != 2 {
		t.Errorf("swap restrictions %v", r)
	}
	if r := b.EditRestrictions(); len(r) != 1 || r[0] != "non_external_payment" {
		t.Errorf("edit restrictions %v", r)
	}
	// What the real booking record does not say is not held against it: the upstream decides.
	silent := Booking{Payments: []BookingPayment{{ProviderReference: "pay_1"}}}
	if r := silent.SwapRestrictions(); len(r) != 0 {
		t.Errorf("swap restrictions of a silent record %v", r)
	}
	if r := silent.EditRestrictions(); len(r) != 0 {
		t.Errorf("edit restrictions of a silent record %v", r)
	}
	if !silent.LikelyPaid() || (&Booking{}).LikelyPaid() {
		t.Error("LikelyPaid")
	}
	if _, ok := b.Ticket(1); ok || b.PackageMates(1) != nil {
		t.Error("ticket lookup on empty booking")
	}
}

func TestCinemaLocation(t *testing.T) {
	if (Cinema{}).Location() != time.UTC || (Cinema{TimeZone: "Nowhere/Else"}).Location() != time.UTC {
		t.Error("fallback")
	}
	if _, err := time.LoadLocation("Europe/Berlin"); err != nil {
		t.Skip("no time zone database")
	}
	if loc := (Cinema{TimeZone: "Europe/Berlin"}).Location(); loc.String() != "Europe/Berlin" {
		t.Errorf("location %v", loc)
	}
}

func TestPlaceOnPlan(t *testing.T) {
	plan := SeatPlan{Areas: []Area{
		{Number: 1, AreaCategoryCode: "STD", Rows: []Row{{Label: "F", Seats: []Seat{
			{Position: SeatPosition{1, 5, 11}, AreaCategoryCode: "STD", RowLabel: "F", Label: "12"},
		}}}},
		{Number: 2, AreaCategoryCode: "BOX", Rows: []Row{{Label: "F", Seats: []Seat{
			{Position: SeatPosition{2, 0, 0}, AreaCategoryCode: "BOX", RowLabel: "F", Label: "12"},
			{Position: SeatPosition{2, 0, 1}, AreaCategoryCode: "BOX", RowLabel: "F", Label: "13"},
		}}}},
	}}
	tests := []struct {
		name   string
		seat   *SeatRef
		want   *SeatPosition // nil: not placed
		placed bool
	}{
		{"labels in one area", &SeatRef{RowLabel: "F", Label: "13"}, &SeatPosition{2, 0, 1}, true},
		{"shared labels: the first area", &SeatRef{RowLabel: "F", Label: "12"}, &SeatPosition{1, 5, 11}, true},
		{"shared labels: the ticket's category", &SeatRef{RowLabel: "f ", Label: " 12", AreaCategoryCode: "BOX"}, &SeatPosition{2, 0, 0}, true},
		{"not on the plan", &SeatRef{RowLabel: "Z", Label: "1"}, nil, false},
		{"already placed is kept", &SeatRef{RowLabel: "F", Label: "12", Position: SeatPosition{9, 9, 9}, Placed: true}, &SeatPosition{9, 9, 9}, true},
		{"no seat", nil, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := Booking{Tickets: []BookedTicket{{Seq: 1, Seat: tc.seat}}}
			missing := b.PlaceOnPlan(plan)
			got := b.Tickets[0]
			if got.Placed() != tc.placed {
				t.Fatalf("placed = %v, want %v (missing %v)", got.Placed(), tc.placed, missing)
			}
			if tc.want != nil && got.Seat.Position != *tc.want {
				t.Errorf("position %v, want %v", got.Seat.Position, *tc.want)
			}
			if tc.seat != nil && tc.want == nil && len(missing) != 1 {
				t.Errorf("missing %v", missing)
			}
		})
	}
}
