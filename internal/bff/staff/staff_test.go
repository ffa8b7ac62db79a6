package staff

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

// TestAuditActionWords: every action the site records is put into words; an unknown one is
// shown as its stored code.
func TestAuditActionWords(t *testing.T) {
	l := webtest.English(t)
	for _, a := range []string{audit.ActionSignIn, audit.ActionSignInFailed, audit.ActionSignOut, audit.ActionSessionsEnded,
		audit.ActionLookup, audit.ActionEdit, audit.ActionEditCancel, audit.ActionPayment, audit.ActionRefund, audit.ActionApproval,
		audit.ActionApprovalRefused, audit.ActionSwap, audit.ActionSale, audit.ActionCollect, audit.ActionDeviceEnrol,
		audit.ActionDeviceRevoke, audit.ActionAttentionRetry, audit.ActionAttentionSolved, audit.ActionNextCustomer,
		audit.ActionAccountUnlock} {
		if got := auditActionWords(l, a); got == a || got == "" {
			t.Errorf("auditActionWords(%q) = %q, want words", a, got)
		}
	}
	if got := auditActionWords(l, "something-new"); got != "something-new" {
		t.Errorf("unknown action: %q, want its code", got)
	}
}

func TestRoleWords(t *testing.T) {
	l := webtest.English(t)
	if roleWords(l, staffaccounts.Supervisor) == roleWords(l, staffaccounts.Clerk) {
		t.Error("supervisor and clerk have the same words")
	}
}
