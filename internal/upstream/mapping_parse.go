package upstream

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// ParseBookingStatusMapping reads a bookingStatus mapping from configuration, e.g.
// "0=kept,1=added,2=removed" (words: kept or booked, added, removed). Empty means the default.
func ParseBookingStatusMapping(s string) (BookingStatusMapping, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultBookingStatusMapping(), nil
	}
	words := map[string]cinema.LineState{"kept": cinema.LineKept, "booked": cinema.LineKept, "added": cinema.LineAdded, "removed": cinema.LineRemoved}
	m := BookingStatusMapping{}
	for _, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		n, err := strconv.Atoi(strings.TrimSpace(k))
		state, known := words[strings.ToLower(strings.TrimSpace(v))]
		if !ok || err != nil || !known {
			return nil, fmt.Errorf("booking status mapping %q: want NUMBER=kept|added|removed, comma-separated", pair)
		}
		m[n] = state
	}
	return m, nil
}

// ParsePaymentStatusMapping reads a PaymentStatus letter mapping from configuration, e.g.
// "P=pending,Y=paid,N=declined,C=cancelled,R=refunded". Empty means the default. Letters not
// listed stay unknown (never success).
func ParsePaymentStatusMapping(s string) (PaymentStatusMapping, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultPaymentStatusMapping(), nil
	}
	words := map[string]cinema.PaymentStatus{"pending": cinema.PaymentPending, "paid": cinema.PaymentPaid, "declined": cinema.PaymentDeclined,
		"cancelled": cinema.PaymentCancelled, "refunded": cinema.PaymentRefunded, "partially_refunded": cinema.PaymentPartiallyRefunded}
	m := PaymentStatusMapping{}
	for _, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		st, known := words[strings.ToLower(strings.TrimSpace(v))]
		k = strings.TrimSpace(k)
		if !ok || k == "" || !known {
			return nil, fmt.Errorf("payment status mapping %q: want LETTER=pending|paid|declined|cancelled|refunded, comma-separated", pair)
		}
		m[k] = st
	}
	return m, nil
}
