package words

import (
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// TestEditRefusalsNeverSendStaffToTheBoxOffice: every edit refusal and the words of a box
// office sale, in English and German, send a customer where they may go and never send staff
// to the box office (they are it); the two audiences get their own words where a customer's
// would.
func TestEditRefusalsNeverSendStaffToTheBoxOffice(t *testing.T) {
	c, err := i18n.Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	sendsThere := map[string][]string{"en": {"ask at the box office", "Please ask"}, "de": {"wenden Sie sich", "an die Kinokasse"}}
	restrictions := []upstream.EditRestriction{upstream.EditConcessions, upstream.EditNonExternalPayment, upstream.EditPackageTicket,
		upstream.EditLoyaltyTicket, upstream.EditVoucherTicket, upstream.EditThirdPartyMemberTicket, upstream.EditSessionStarted,
		upstream.EditAlreadyInEdit, "something_new"}
	for _, tag := range []language.Tag{language.English, language.German} {
		l := c.For(tag)
		lang := tag.String()
		staffWords := map[string]string{"box office sale": BoxOfficeSale(l, true) + " " + BoxOfficeSaleSeats(l, true)}
		for _, r := range restrictions {
			staffWords[string(r)] = EditRestrictionFor(l, r, true)
		}
		for what, text := range staffWords {
			for _, bad := range sendsThere[lang] {
				if strings.Contains(text, bad) {
					t.Errorf("%s, %s, for staff: %q sends them to the box office", lang, what, text)
				}
			}
		}
		for _, r := range []upstream.EditRestriction{upstream.EditConcessions, upstream.EditNonExternalPayment, "something_new"} {
			customer := EditRestrictionFor(l, r, false)
			if customer != EditRestriction(l, r) || customer == staffWords[string(r)] {
				t.Errorf("%s, %s: the customer reads %q, staff %q", lang, r, customer, staffWords[string(r)])
			}
		}
		if customer := BoxOfficeSale(l, false); customer == BoxOfficeSale(l, true) || !strings.Contains(customer, sendsThere[lang][len(sendsThere[lang])-1]) {
			t.Errorf("%s: a box office sale to a customer reads %q", lang, customer)
		}
	}
}
