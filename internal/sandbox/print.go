package sandbox

import (
	"fmt"
	"html"
	"strings"
)

// PrintDocType values (wire-profile "Enumerations").
const (
	printDocAll            = 0
	printDocBookingVoucher = 1
	printDocReceipt        = 2
)

type printStream struct {
	docType int
	data    string
}

func money(cents int64, currency string) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d %s", sign, cents/100, cents%100, currency)
}

// printStreams makes one ticket document per ticket (BookingVoucher) and a
// receipt. streamType "TEXT" gives plain text; anything else a small HTML
// document, which is what a kiosk printer template would be filled with.
func printStreams(b *booking, streamType string) []printStream {
	text := strings.EqualFold(streamType, "TEXT") || strings.EqualFold(streamType, "PLAINTEXT")
	cur := b.cinema.CurrencyCode
	var out []printStream
	for _, t := range b.tickets {
		ss := t.sess
		seat := "unallocated"
		if t.seat >= 0 {
			d := &ss.screen.seats[t.seat]
			seat = fmt.Sprintf("Row %s, Seat %s (%s)", d.rowName, d.label, d.area.desc)
		}
		lines := [][2]string{
			{"Cinema", b.cinema.Name},
			{"Film", ss.film.Title},
			{"Showtime", ss.showtime.In(b.cinema.loc).Format("Mon 2 Jan 2006 15:04")},
			{"Screen", ss.screen.name},
			{"Seat", seat},
			{"Ticket", fmt.Sprintf("%s, %s", t.tt.Description, money(t.price, cur))},
			{"Booking", fmt.Sprintf("%d (%s), ticket %d", b.number, b.id, t.seq)},
			{"Barcode", fmt.Sprintf("%s-%d-%d", b.id, ss.id, t.seq)},
		}
		out = append(out, printStream{printDocBookingVoucher, document("Ticket", lines, text)})
	}
	total, fees := b.totals()
	lines := [][2]string{
		{"Cinema", b.cinema.Name},
		{"Booking", fmt.Sprintf("%d (%s)", b.number, b.id)},
		{"Customer", b.customerName},
		{"Tickets", fmt.Sprintf("%d", len(b.tickets))},
		{"Booking fees", money(fees, cur)},
		{"Total", money(total, cur)},
	}
	for _, p := range b.payments {
		lines = append(lines, [2]string{"Paid " + p.tender, fmt.Sprintf("%s %s", money(p.amount, cur), p.masked)})
	}
	out = append(out, printStream{printDocReceipt, document("Receipt", lines, text)})
	return out
}

func document(title string, lines [][2]string, text bool) string {
	var sb strings.Builder
	if text {
		sb.WriteString(strings.ToUpper(title) + "\n")
		for _, l := range lines {
			fmt.Fprintf(&sb, "%-13s %s\n", l[0]+":", l[1])
		}
		return sb.String()
	}
	fmt.Fprintf(&sb, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head><body><h1>%s</h1><dl>", title, title)
	for _, l := range lines {
		fmt.Fprintf(&sb, "<dt>%s</dt><dd>%s</dd>", html.EscapeString(l[0]), html.EscapeString(l[1]))
	}
	sb.WriteString("</dl></body></html>")
	return sb.String()
}
