package staff_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/cinemabff/cinemabff/internal/staff"
	"github.com/cinemabff/cinemabff/internal/storage"
)

func TestAccounts(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	st := staff.New(db.SQL)
	if err := st.Put(ctx, "Anna", "Anna Box", "short"); !errors.Is(err, staff.ErrInvalid) {
		t.Fatalf("short password accepted: %v", err)
	}
	if err := st.Put(ctx, "Anna", "Anna Box", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		user, pass string
		ok         bool
	}{
		{"anna", "correct horse battery", true},
		{" ANNA ", "correct horse battery", true},
		{"anna", "wrong password!!", false},
		{"bob", "correct horse battery", false},
	}
	for _, tc := range cases {
		a, err := st.Authenticate(ctx, tc.user, tc.pass)
		if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, staff.ErrBadCredentials)) {
			t.Errorf("Authenticate(%q, %q) = %+v, %v", tc.user, tc.pass, a, err)
		}
		if tc.ok && a.Name != "Anna Box" {
			t.Errorf("name %q", a.Name)
		}
	}
	// Put replaces the password.
	if err := st.Put(ctx, "anna", "Anna Box", "a brand new password"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Authenticate(ctx, "anna", "correct horse battery"); !errors.Is(err, staff.ErrBadCredentials) {
		t.Fatal("old password still works")
	}
}
