package checkout_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/tickets/qrread"
)

// inlineCodes decodes the QR images of a message.
func inlineCodes(t *testing.T, m mail.StoredMessage) []string {
	t.Helper()
	var out []string
	for _, in := range m.Inline {
		text, err := qrread.DecodePNG(in.Data)
		if err != nil {
			t.Fatalf("inline image %s: %v", in.CID, err)
		}
		out = append(out, text)
	}
	sort.Strings(out)
	return out
}

func TestPurchaseShowsQRCodesAndWritesAnEmail(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	body := h.WaitForConfirmation(h.ActAtProvider(h.PressPay(), "pay"), 5*time.Second)
	doc := h.Doc(body)
	number := strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text())
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", mustInt(t, number))
	if err != nil {
		t.Fatal(err)
	}
	codes := h.PageCodes(doc)
	if len(codes) != 2 || len(b.Tickets) != 2 {
		t.Fatalf("%d QR codes for %d tickets", len(codes), len(b.Tickets))
	}
	for i, c := range codes {
		tk := b.Tickets[i]
		if c.BookingID != b.ID || c.Line != tk.Seq || c.Seat != tk.Seat.RowLabel+"-"+tk.Seat.Label || fmt.Sprint(c.BookingNumber) != number {
			t.Errorf("code %d says %+v; the booking has id %s, ticket line %d at %s", i, c, b.ID, tk.Seq, tk.Seat.Name())
		}
	}
	if line := doc.Find(`[data-testid="mail-line"]`).Text(); !strings.Contains(line, "on its way to") || !strings.Contains(line, "…@example.com") {
		t.Fatalf("the confirmation says %q about the e-mail", line)
	}

	msgs := h.DeliveredMail("purchase")
	if len(msgs) != 1 {
		t.Fatalf("%d purchase messages", len(msgs))
	}
	m := msgs[0]
	if !strings.Contains(m.Subject, number) || !strings.Contains(m.Text, number) || !strings.Contains(m.HTML, number) {
		t.Fatalf("message does not name booking %s: %q", number, m.Subject)
	}
	for _, tk := range b.Tickets {
		seat := fmt.Sprintf("Row %s, seat %s", tk.Seat.RowLabel, tk.Seat.Label)
		if !strings.Contains(m.Text, seat) || !strings.Contains(m.HTML, seat) {
			t.Errorf("message does not name %s:\n%s", seat, m.Text)
		}
	}
	var want []string
	signer, _ := tickets.NewSigner(h.MailDeps.TicketKey)
	for _, c := range codes {
		p, _ := signer.Payload(c)
		want = append(want, p)
	}
	sort.Strings(want)
	if got := inlineCodes(t, m); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the message's QR codes %q, the page's %q", got, want)
	}
	// Delivered once: the same message is not written again, and the page now says sent.
	if again := h.DeliveredMail("purchase"); len(again) != 1 {
		t.Fatalf("%d purchase messages after a second run", len(again))
	}
}

func TestSwapShowsNewTicketsAndWritesAnEmail(t *testing.T) {
	h := bfftest.SwapHarness(t, 100004) // J10, J11, J12: tickets 1, 2, 3
	_, body := h.Get("/booking/current")
	before := h.PageCodes(h.Doc(body))
	if len(before) != 3 {
		t.Fatalf("%d QR codes on the booking page before the swap", len(before))
	}
	done := bfftest.SwapThrough(t, h, 100004, []string{"1", "2"}, []string{bfftest.Seat(1, 2, 3), bfftest.Seat(1, 2, 4)})
	if n := len(h.PageCodes(done)); n != 3 {
		t.Fatalf("%d tickets on the swap result", n)
	}
	_, body = h.Get("/booking/current")
	doc := h.Doc(body)
	after := h.PageCodes(doc)
	seats := map[int]string{}
	for _, c := range after {
		seats[c.Line] = c.Seat
	}
	if seats[1] != "C-4" || seats[2] != "C-5" || seats[3] != "J-12" {
		t.Fatalf("the QR codes now say %v", seats)
	}
	if after[0] == before[0] || after[2] != before[2] {
		t.Fatalf("moved tickets keep their code, or the unmoved one changed: %+v → %+v", before, after)
	}
	cards := doc.Find(`[data-testid="ticket-card"]`).Text()
	if strings.Contains(cards, "Row J Seat 10") || strings.Contains(doc.Find(`[data-testid="ticket-seat"]`).Text(), "10") {
		t.Fatalf("the old seat is still shown as a ticket: %s", cards)
	}
	replaced := doc.Find(`[data-testid="replaced-ticket"]`)
	if replaced.Length() != 2 || !strings.Contains(replaced.Text(), "Row J, seat 10") || !strings.Contains(replaced.Text(), "Row J, seat 11") ||
		!strings.Contains(replaced.Text(), "No longer valid") {
		t.Fatalf("replaced tickets shown as %q", replaced.Text())
	}

	msgs := h.DeliveredMail("swap")
	if len(msgs) != 1 {
		t.Fatalf("%d swap messages", len(msgs))
	}
	m := msgs[0]
	for _, s := range []string{"Row J, seat 10", "Row J, seat 11", "Row C, seat 4", "Row C, seat 5", "100004"} {
		if !strings.Contains(m.Text, s) || !strings.Contains(m.HTML, s) {
			t.Errorf("swap message lacks %q:\n%s", s, m.Text)
		}
	}
	if !strings.Contains(m.To, "paid4@example.com") || len(m.Inline) != 3 {
		t.Fatalf("swap message to %q with %d QR images", m.To, len(m.Inline))
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}
