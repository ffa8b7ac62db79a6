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
