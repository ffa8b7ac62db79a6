package checkout_test

import (
	"net/http"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestTicketCountsStepperMarkup: each ticket type's number field (the way in without
// JavaScript) has a − and a + beside it that are plain buttons (never submitting the form),
// hidden until app.js shows them, named for the ticket type and tied to their field; on a
// customer's device and on a kiosk alike.
func TestTicketCountsStepperMarkup(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    *bfftest.Harness
	}{
		{"customer", bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})},
		{"kiosk", bfftest.KioskHarness(t, bfftest.HarnessOpts{})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.h.Page("/whats-on/0001/1113", http.StatusOK)
			fields := doc.Find(`[data-testid="tickets-form"] input[type="number"]`)
			if fields.Length() == 0 {
				t.Fatal("no ticket count fields")
			}
			fields.Each(func(_ int, in *goquery.Selection) {
				id := in.AttrOr("id", "")
				box := in.Closest("[data-stepper]")
				if box.Length() != 1 {
					t.Errorf("%s: not in a [data-stepper]", id)
					return
				}
				for _, step := range []string{"-1", "1"} {
					b := box.Find(`button[data-step="` + step + `"]`)
					_, hidden := b.Attr("hidden")
					switch {
					case b.Length() != 1:
						t.Errorf("%s: %d buttons for %s", id, b.Length(), step)
					case b.AttrOr("type", "") != "button", !hidden:
						t.Errorf("%s %s: type %q, hidden %v: want a plain button, hidden until app.js shows it", id, step, b.AttrOr("type", ""), hidden)
					case b.AttrOr("aria-controls", "") != id, b.AttrOr("aria-label", "") == "":
						t.Errorf("%s %s: aria-controls %q, aria-label %q", id, step, b.AttrOr("aria-controls", ""), b.AttrOr("aria-label", ""))
					}
				}
			})
		})
	}
}

// TestOneStepperToAddOrRemove: a ticket is added or removed one way, with the − and
// + of its type: the change page and the purchase's ticket step draw the same stepper buttons,
// and the change page has no list of ticket types, no "add several" form and no Remove of its
// own on a ticket that a stepper counts.
func TestOneStepperToAddOrRemove(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	buy := h.Page("/whats-on/0001/1113", http.StatusOK)
	h.Find(bfftest.BkPaid1)
	edit := h.StartEdit(t)
	for name, doc := range map[string]*goquery.Document{"purchase": buy, "change": edit} {
		if n := doc.Find(`button.stepper-button`).Length(); n < 2 || n%2 != 0 {
			t.Errorf("%s: %d stepper buttons, want a − and a + per ticket type", name, n)
		}
		if n := doc.Find(`main select[name="type"]`).Length(); n != 0 {
			t.Errorf("%s: %d ticket type lists", name, n)
		}
	}
	if edit.Find(`[data-testid="add-several"]`).Length() != 0 {
		t.Error("the change page still has the add-several form")
	}
	if n := edit.Find(`[data-testid="edit-lines"] form`).Length(); n != 0 {
		t.Errorf("the change page's ticket lines still have %d Remove forms", n)
	}
	if edit.Find(`[data-testid="stepper"] [data-testid="remove-one"]`).Length() == 0 || edit.Find(`[data-testid="stepper"] [data-testid="add-one"]`).Length() == 0 {
		t.Error("the change page's steppers cannot add and remove")
	}
}
