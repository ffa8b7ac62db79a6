package booking_test

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// amountIn matches an amount of money in German or English, signed or not: "+0,75 €",
// "−€1.50", "29,00 €".
var amountIn = regexp.MustCompile(`[+−-]?(€\x{00a0}?)?\d{1,3}([.,]\d{3})*[.,]\d{2}(\x{00a0}?€)?`)

// signedCents reads a German amount of the edit page ("+0,75 €", "−9,50 €", "29,00 €").
func signedCents(t *testing.T, s string) int64 {
	t.Helper()
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\u00a0", " ")), "")
	neg := strings.HasPrefix(s, "−") || strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+−-")
	s = strings.TrimSuffix(s, "€")
	s = strings.ReplaceAll(strings.ReplaceAll(s, ".", ""), ",", "")
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("not an amount: %q", s)
	}
	if neg {
		n = -n
	}
	return n
}

// moneyRows are the edit page's money table: each row's words and its amount.
func moneyRows(doc *goquery.Document) map[string]string {
	rows := map[string]string{}
	doc.Find(`[data-testid="edit-money"] tr`).Each(func(_ int, tr *goquery.Selection) {
		rows[bfftest.Squash(tr.Find("th").Text())] = bfftest.Squash(tr.Find("td").Text())
	})
	return rows
}

// TestFeeChangeShownOnce: booking 100020 was made at the old booking fee. Its edit page gives
// the change in booking fees once, as one figure in the money table that adds up to the new
// total, and the note below explains it in words without a second, different figure: after
// a ticket is removed the fees of the booking change by 0,00 €, not by the +0,75 € the
// re-pricing of the three booked tickets came to before the change.
func TestFeeChangeShownOnce(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Speaking("de-DE,de;q=0.9")
	h.Find(bkSplit)
	doc := h.StartEdit(t)
	check := func(when string, doc *goquery.Document, wantFees string) {
		t.Helper()
		rows := moneyRows(doc)
		fees, ok := rows["Änderung der Buchungsgebühren"]
		if !ok {
			t.Fatalf("%s: no fee row in %q", when, rows)
		}
		if fees != wantFees {
			t.Errorf("%s: fee row %q, want %q", when, fees, wantFees)
		}
		before, tickets, after := rows["Buchung vor der Änderung"], rows["Hinzugefügte oder entfernte Tickets"], rows["Buchung nach der Änderung"]
		if signedCents(t, before)+signedCents(t, tickets)+signedCents(t, fees) != signedCents(t, after) {
			t.Errorf("%s: %s %s %s does not make %s", when, before, tickets, fees, after)
		}
		note := bfftest.Squash(bfftest.Text(doc, "fee-note"))
		if !strings.Contains(note, "Buchungsgebühr") {
			t.Fatalf("%s: no explanation of the fee change: %q", when, note)
		}
		if got := amountIn.FindAllString(note, -1); len(got) != 0 {
			t.Errorf("%s: the note gives the fee change again, as %q: %q", when, got, note)
		}
		if heading := bfftest.Squash(doc.Find(`[data-testid="fee-note"] .notice-heading`).Text()); !strings.Contains(heading, "Buchungsgebühr") {
			t.Errorf("%s: note heading %q", when, heading)
		}
	}
	check("before a change", doc, "+0,75 €")

	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	_, doc = h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	check("after removing a ticket", doc, "0,00 €")
}
