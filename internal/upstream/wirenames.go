package upstream

// The contract writes every field that carries the maker's brand with the
// word "Core"; the real wire says "Vista" (docs/wire-profile.md, "Brand
// names"). This file is the one table of those names. Wire structs read the
// Vista name and also accept the contract's neutral name, so that a test
// double written literally from the contract is understood; when both are
// present the Vista name wins. Requests always carry the Vista name.
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
	VistaTransactionNumber *flexInt `json:"VistaTransactionNumber"`
	VistaBookingNumber     *flexInt `json:"VistaBookingNumber"`
	CoreTransactionNumber  *flexInt `json:"CoreTransactionNumber"`
	CoreBookingNumber      *flexInt `json:"CoreBookingNumber"`
}

func (b orderBrand) bookingNumber() int64 { return brandInt(b.VistaBookingNumber, b.CoreBookingNumber) }
func (b orderBrand) transactionNumber() int64 {
	return brandInt(b.VistaTransactionNumber, b.CoreTransactionNumber)
}

// completionBrand is the brand-carrying part of OrderIdentifiers and of the
// flat CompleteOrder reply.
type completionBrand struct {
	VistaBookingNumber *flexInt    `json:"VistaBookingNumber"`
	VistaBookingId     *flexString `json:"VistaBookingId"`
	VistaTransNumber   *flexInt    `json:"VistaTransNumber"`
	CoreBookingNumber  *flexInt    `json:"CoreBookingNumber"`
	CoreBookingId      *flexString `json:"CoreBookingId"`
	CoreTransNumber    *flexInt    `json:"CoreTransNumber"`
}

func (b completionBrand) bookingNumber() int64 {
	return brandInt(b.VistaBookingNumber, b.CoreBookingNumber)
}
func (b completionBrand) bookingID() string  { return brandString(b.VistaBookingId, b.CoreBookingId) }
func (b completionBrand) transNumber() int64 { return brandInt(b.VistaTransNumber, b.CoreTransNumber) }

// bookingBrand is the brand-carrying part of a GetSingleBooking Booking.
type bookingBrand struct {
	VistaTransactionId *flexInt `json:"VistaTransactionId"`
	VistaTransNumber   *flexInt `json:"VistaTransNumber"`
	CoreTransactionId  *flexInt `json:"CoreTransactionId"`
	CoreTransNumber    *flexInt `json:"CoreTransNumber"`
}

func (b bookingBrand) transactionID() int64 {
	if n := brandInt(b.VistaTransactionId, b.CoreTransactionId); n != 0 {
		return n
	}
	return brandInt(b.VistaTransNumber, b.CoreTransNumber)
}

// webPaymentBrand is the brand-carrying part of OrderWebPaymentData.
type webPaymentBrand struct {
	VistaTransRef *flexString `json:"VistaTransRef"`
	CoreTransRef  *flexString `json:"CoreTransRef"`
}

func (b webPaymentBrand) transRef() string { return brandString(b.VistaTransRef, b.CoreTransRef) }

func brandInt(vista, core *flexInt) int64 {
	if vista != nil {
		return int64(*vista)
	}
	if core != nil {
		return int64(*core)
	}
	return 0
}

func brandString(vista, core *flexString) string {
	if vista != nil && *vista != "" {
		return string(*vista)
	}
	if core != nil {
		return string(*core)
	}
	return ""
}
