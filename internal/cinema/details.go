package cinema

// PaymentStatus is the status of a payment (redirect payment, additional
// payment or provider payment).
type PaymentStatus int

const (
	PaymentUnknown           PaymentStatus = iota // not mapped: not yet known, never success
	PaymentPending                                // awaiting the customer
	PaymentPaid                                   // paid
	PaymentDeclined                               // declined by the provider
	PaymentCancelled                              // cancelled by the customer
	PaymentRefunded                               // fully refunded
	PaymentPartiallyRefunded                      // paid, part of it refunded
)

var paymentStatusNames = [...]string{"unknown", "pending", "paid", "declined", "cancelled", "refunded", "partially_refunded"}

func (s PaymentStatus) String() string {
	if s >= 0 && int(s) < len(paymentStatusNames) {
		return paymentStatusNames[s]
	}
	return "unknown"
}

// Final reports whether the status will not change by itself any more.
func (s PaymentStatus) Final() bool {
	switch s {
	case PaymentPaid, PaymentDeclined, PaymentCancelled, PaymentRefunded, PaymentPartiallyRefunded:
		return true
	}
	return false
}

// Failed reports whether the payment ended without money taken.
func (s PaymentStatus) Failed() bool { return s == PaymentDeclined || s == PaymentCancelled }

// OrderDetails is the result of an order completion (GetOrderDetails,
// CompleteOrder).
type OrderDetails struct {
	CinemaID          string
	UserSessionID     string
	ClientID          string
	HistoryID         int64
	BookingNumber     int64
	BookingID         string
	TransactionNumber int64
	// Completed is the only indicator of a successful completion.
	Completed          bool
	WebPayment         *WebPayment // nil when the order has no redirect payment
	AdditionalPayments []AdditionalPayment
	PrintStreams       []PrintStream
}

// WebPayment is the redirect payment record of an order.
type WebPayment struct {
	Status            PaymentStatus
	RawStatus         string // the letter as sent
	Amount            Money
	CustomerName      string
	CardNumberMasked  string
	CardType          string
	CardExpiryMonth   string
	CardExpiryYear    string
	LoyaltyCardNumber string
	AttemptNumber     int
	Token             string // matches the token on the return address
	BankService       string
	TransRef          string
	UserID            string
}

// AdditionalPayment is a gift card or loyalty payment processed with the order.
type AdditionalPayment struct {
	Amount           Money
	Billed           Money
	MaskedCardNumber string
	CardType         string
	Status           PaymentStatus
	RawStatus        string
}

// PrintDocType is the kind of a print stream.
type PrintDocType int

const (
	PrintAll            PrintDocType = 0
	PrintBookingVoucher PrintDocType = 1
	PrintReceipt        PrintDocType = 2
)

func (t PrintDocType) String() string {
	switch t {
	case PrintAll:
		return "all"
	case PrintBookingVoucher:
		return "booking_voucher"
	case PrintReceipt:
		return "receipt"
	}
	return "unknown"
}

// PrintStream is printable data for tickets or a receipt.
type PrintStream struct {
	Data    string // template-encoded print data, as sent
	DocType PrintDocType
}
