package upstream

// The contract writes every field that carries the maker's brand with the
// word "Core"; the real wire says "Vista" (docs/wire-profile.md, "Brand
// names"). This file is the one place those names are spelled: the wire
// structs embed the types below. A reply in the contract's neutral spelling
// is not the real service's, and is not read.
//
//	contract               wire
//	CoreBookingNumber      VistaBookingNumber      (order, order identifiers, CompleteOrder reply)
//	CoreBookingId          VistaBookingId          (order identifiers, CompleteOrder reply)
//	CoreTransactionNumber  VistaTransactionNumber  (order)
//	CoreTransNumber        VistaTransNumber        (order identifiers, CompleteOrder reply, booking)
//	CoreTransactionId      VistaTransactionId      (booking)
//	CoreTransRef           VistaTransRef           (web payment data; uncertain)

// orderBrand is the brand-carrying part of a ticketing Order.
type orderBrand struct {
	VistaTransactionNumber flexInt `json:"VistaTransactionNumber"`
	VistaBookingNumber     flexInt `json:"VistaBookingNumber"`
}

func (b orderBrand) bookingNumber() int64     { return int64(b.VistaBookingNumber) }
func (b orderBrand) transactionNumber() int64 { return int64(b.VistaTransactionNumber) }

// completionBrand is the brand-carrying part of OrderIdentifiers and of the
// flat CompleteOrder reply.
type completionBrand struct {
	VistaBookingNumber flexInt    `json:"VistaBookingNumber"`
	VistaBookingId     flexString `json:"VistaBookingId"`
	VistaTransNumber   flexInt    `json:"VistaTransNumber"`
}

func (b completionBrand) bookingNumber() int64 { return int64(b.VistaBookingNumber) }
func (b completionBrand) bookingID() string    { return string(b.VistaBookingId) }
func (b completionBrand) transNumber() int64   { return int64(b.VistaTransNumber) }

// bookingBrand is the brand-carrying part of a GetSingleBooking Booking. Both
// spellings of the transaction are seen on booking look-ups.
type bookingBrand struct {
	VistaTransactionId flexInt `json:"VistaTransactionId"`
	VistaTransNumber   flexInt `json:"VistaTransNumber"`
}

func (b bookingBrand) transactionID() int64 {
	if b.VistaTransactionId != 0 {
		return int64(b.VistaTransactionId)
	}
	return int64(b.VistaTransNumber)
}

// webPaymentBrand is the brand-carrying part of OrderWebPaymentData.
type webPaymentBrand struct {
	VistaTransRef flexString `json:"VistaTransRef"`
}

func (b webPaymentBrand) transRef() string { return string(b.VistaTransRef) }
