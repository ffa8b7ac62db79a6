package bff

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/tickets/qrread"
)

// pageCodes decodes every ticket QR code a page shows (from its SVG markup) and checks its
// signature with the server's key.
func (h *harness) pageCodes(doc *goquery.Document) []tickets.Code {
	h.t.Helper()
	signer, err := tickets.NewSigner(h.mailDeps.TicketKey)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []tickets.Code
	doc.Find(`[data-testid="ticket-card"] [data-testid="ticket-qr"] svg`).Each(func(_ int, s *goquery.Selection) {
		svg, err := goquery.OuterHtml(s)
		if err != nil {
			h.t.Fatal(err)
		}
		text, err := qrread.DecodeSVG(svg)
		if err != nil {
			h.t.Fatalf("QR code on the page does not decode: %v", err)
		}
		code, err := signer.Parse(text)
		if err != nil {
			h.t.Fatalf("QR code %q: %v", text, err)
		}
		out = append(out, code)
	})
	return out
}

// deliveredMail delivers the outbox and returns the stored messages of a kind, newest first.
func (h *harness) deliveredMail(kind string) []mail.StoredMessage {
	h.t.Helper()
	if _, err := h.srv.DeliverMail(context.Background()); err != nil {
		h.t.Fatalf("deliver: %v", err)
	}
	list, err := mail.ListDir(h.mailDir)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []mail.StoredMessage
	for _, s := range list {
		if s.Kind != kind {
			continue
		}
		m, err := mail.ReadStored(h.mailDir, s.Name)
		if err != nil {
			h.t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// oneMail delivers the outbox and returns the one message of a kind.
func (h *harness) oneMail(kind string) mail.StoredMessage {
	h.t.Helper()
	msgs := h.deliveredMail(kind)
	if len(msgs) != 1 {
		h.t.Fatalf("%d %s messages, want 1", len(msgs), kind)
	}
	return msgs[0]
}

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
	h := newHarness(t, harnessOpts{sandbox: true})
	h.buyUpToSummary("1113", twoAdults())
	body := h.waitForConfirmation(h.actAtProvider(h.pressPay(), "pay"), 5*time.Second)
	doc := h.doc(body)
	number := strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text())
	b, err := h.srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", mustInt(t, number))
	if err != nil {
		t.Fatal(err)
	}
	codes := h.pageCodes(doc)
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

	msgs := h.deliveredMail("purchase")
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
	signer, _ := tickets.NewSigner(h.mailDeps.TicketKey)
	for _, c := range codes {
		p, _ := signer.Payload(c)
		want = append(want, p)
	}
	sort.Strings(want)
	if got := inlineCodes(t, m); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the message's QR codes %q, the page's %q", got, want)
	}
	// Delivered once: the same message is not written again, and the page now says sent.
	if again := h.deliveredMail("purchase"); len(again) != 1 {
		t.Fatalf("%d purchase messages after a second run", len(again))
	}
}

func TestSwapShowsNewTicketsAndWritesAnEmail(t *testing.T) {
	h := swapHarness(t, 100004) // J10, J11, J12: tickets 1, 2, 3
	_, body := h.get("/booking/current")
	before := h.pageCodes(h.doc(body))
	if len(before) != 3 {
		t.Fatalf("%d QR codes on the booking page before the swap", len(before))
	}
	done := swapThrough(t, h, 100004, []string{"1", "2"}, []string{seat(1, 2, 3), seat(1, 2, 4)})
	if n := len(h.pageCodes(done)); n != 3 {
		t.Fatalf("%d tickets on the swap result", n)
	}
	_, body = h.get("/booking/current")
	doc := h.doc(body)
	after := h.pageCodes(doc)
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

	msgs := h.deliveredMail("swap")
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
