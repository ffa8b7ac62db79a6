package staff

import (
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

// TestAuditActionWords: every action the site records is put into words, in English and
// German, from the catalog (the message ids are looked up at run time, so the catalog's own
// check of the ids the code asks for does not see them); an unknown one is shown as its stored
// code.
func TestAuditActionWords(t *testing.T) {
	en, de := webtest.Localizers(t)
	for _, a := range []string{audit.ActionSignIn, audit.ActionSignInFailed, audit.ActionSignOut, audit.ActionSessionsEnded,
		audit.ActionLookup, audit.ActionEdit, audit.ActionEditCancel, audit.ActionPayment, audit.ActionRefund, audit.ActionApproval,
		audit.ActionApprovalRefused, audit.ActionSwap, audit.ActionSale, audit.ActionCollect, audit.ActionDeviceEnrol,
		audit.ActionDeviceRevoke, audit.ActionAttentionRetry, audit.ActionAttentionSolved, audit.ActionNextCustomer,
		audit.ActionAccountUnlock} {
		for _, l := range []*i18n.Localizer{en, de} {
			if got := auditActionWords(l, a); got == a || got == "" || strings.HasPrefix(got, "staff.audit.action.") {
				t.Errorf("auditActionWords(%s, %q) = %q, want words", l.Lang(), a, got)
			}
		}
	}
	if got := auditActionWords(en, "something-new"); got != "something-new" {
		t.Errorf("unknown action: %q, want its code", got)
	}
}

func TestRoleWords(t *testing.T) {
	l := webtest.English(t)
	if roleWords(l, staffaccounts.Supervisor) == roleWords(l, staffaccounts.Clerk) {
		t.Error("supervisor and clerk have the same words")
	}
}
