package words

import (
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// EditRestriction says, in plain words and in l's language, why a booking cannot be
// changed online.
func EditRestriction(l *i18n.Localizer, r upstream.EditRestriction) string {
	return l.T(EditRestrictionID(r))
}

// EditRestrictionFor is EditRestriction for staff (staff true) or for a customer. A customer
// may be sent to the box office; staff are the box office, so their words say what the
// ticketing system refuses and never send them there.
func EditRestrictionFor(l *i18n.Localizer, r upstream.EditRestriction, staff bool) string {
	return l.T(EditRestrictionIDFor(r, staff))
}

// EditRestrictionIDFor is the catalog message of EditRestrictionFor.
func EditRestrictionIDFor(r upstream.EditRestriction, staff bool) string {
	id := EditRestrictionID(r)
	if !staff {
		return id
	}
	switch id {
	case msg("ui.edit_refused.concessions"):
		return msg("ui.edit_refused.staff.concessions")
	case msg("ui.edit_refused.non_external_payment"):
		return msg("ui.edit_refused.staff.non_external_payment")
	case msg("ui.edit_refused.other"):
		return msg("ui.edit_refused.staff.other")
	}
	return id
}

// EditRestrictionID is the catalog message of EditRestriction.
func EditRestrictionID(r upstream.EditRestriction) string {
	switch r {
	case upstream.EditConcessions:
		return msg("ui.edit_refused.concessions")
	case upstream.EditNonExternalPayment:
		return msg("ui.edit_refused.non_external_payment")
	case upstream.EditPackageTicket:
		return msg("ui.edit_refused.package_ticket")
	case upstream.EditLoyaltyTicket:
		return msg("ui.edit_refused.loyalty_ticket")
	case upstream.EditVoucherTicket:
		return msg("ui.edit_refused.voucher_ticket")
	case upstream.EditThirdPartyMemberTicket:
		return msg("ui.edit_refused.third_party_member_ticket")
	case upstream.EditSessionStarted:
		return msg("ui.session_started")
	case upstream.EditAlreadyInEdit:
		return msg("ui.edit_refused.already_in_edit")
	default:
		return msg("ui.edit_refused.other")
	}
}

// BoxOfficeSale says, in l's language, what a booking this site sold at its box office or a
// kiosk (paid in cash, on a card reader or a card terminal) cannot have: the ticketing system
// changes and refunds only bookings paid through the online payment provider (its edits take
// external payments alone), so neither its tickets nor its show can be changed here and
// nothing of it refunded. For staff (staff true) or for a customer, who may be sent to the box
// office.
func BoxOfficeSale(l *i18n.Localizer, staff bool) string {
	if staff {
		return l.T("ui.box_office_sale.staff")
	}
	return l.T("ui.box_office_sale.customer")
}

// BoxOfficeSaleSeats says what such a booking can still have: other seats (a seat swap does
// not ask how a booking was paid).
func BoxOfficeSaleSeats(l *i18n.Localizer, staff bool) string {
	if staff {
		return l.T("ui.box_office_sale.staff_seats")
	}
	return l.T("ui.box_office_sale.customer_seats")
}
