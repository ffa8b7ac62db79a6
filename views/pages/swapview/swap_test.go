package swapview

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func TestChooseGroupsPackageTickets(t *testing.T) {
	v := ChooseView{Header: Header{BookingNumber: "100012"}, ActionURL: "/x", BackURL: "/b", BackLabel: "Back", CSRFToken: "tok",
		Units: []TicketUnit{
			{Value: "1+2", Label: "Sofa for two · Row R, seats 5 and 6", Detail: "Premium · a package of 2 tickets: they move together, so choose 2 new seats for it.", Package: true, TestID: "ticket-1-2"},
			{Value: "3", Label: "Adult · Row P, seat 1", Detail: "Premium", TestID: "ticket-3", Checked: true},
		}}
	var buf bytes.Buffer
	if err := Choose(v).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(buf.String()))
	pkg := doc.Find(`[data-testid="ticket-1-2"]`)
	box := pkg.Find(`input[type="checkbox"][name="ticket"][value="1+2"]`)
	if box.Length() != 1 {
		t.Fatal("a package is not one checkbox")
	}
	id, _ := box.Attr("id")
	if pkg.Find(`label[for="`+id+`"]`).Length() != 1 || !strings.Contains(pkg.Text(), "move together") {
		t.Fatal("the package choice is not labelled or does not say its tickets move together")
	}
	if desc, _ := box.Attr("aria-describedby"); !strings.Contains(doc.Find("#"+desc).Text(), "move together") {
		t.Error("the package note is not tied to its checkbox")
	}
	if doc.Find(`input[name="ticket"][value="3"][checked]`).Length() != 1 || doc.Find(`input[name="ticket"][value="1+2"][checked]`).Length() != 0 {
		t.Error("ticked state not kept")
	}
	if doc.Find(`form[data-testid="swap-form"] input[name="_csrf"][value="tok"]`).Length() != 1 {
		t.Error("no CSRF field")
	}
}

func TestChooseShowsReasonInsteadOfForm(t *testing.T) {
	var buf bytes.Buffer
	_ = Choose(ChooseView{Reason: "Seats can be changed only on a paid booking.", BackURL: "/b", BackLabel: "Back"}).Render(context.Background(), &buf)
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(buf.String()))
	if doc.Find(`form`).Length() != 0 || !strings.Contains(doc.Find(`[data-testid="swap-reason"]`).Text(), "paid booking") {
		t.Fatal("reason not shown instead of the form")
	}
}
