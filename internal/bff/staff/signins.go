package staff

import (
	"context"
	"errors"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
)

// SignIns are the staff accounts as the kernel checks a sign-in against them
// (web.StaffAccounts).
type SignIns struct {
	Store *staffaccounts.Store
}

// StaffAccount reads one account; found is false when there is no such account.
func (s SignIns) StaffAccount(ctx context.Context, username string) (web.StaffAccount, bool, error) {
	a, err := s.Store.Get(ctx, username)
	if errors.Is(err, staffaccounts.ErrNotFound) {
		return web.StaffAccount{}, false, nil
	}
	if err != nil {
		return web.StaffAccount{}, false, err
	}
	return signedIn(a), true, nil
}

// signedIn is what the kernel keeps of an account for a request's sign-in.
func signedIn(a staffaccounts.Account) web.StaffAccount {
	return web.StaffAccount{Username: a.Username, Name: a.Name, Supervisor: a.Role == staffaccounts.Supervisor,
		Disabled: a.Disabled, SessionEpoch: a.SessionEpoch}
}
