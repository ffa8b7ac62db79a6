package storage_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/storage"
)

// TestSQLiteSessionFind: the SQLite session store's prepared look-up finds a stored session,
// its latest data, and nothing for an unknown, deleted or expired token.
func TestSQLiteSessionFind(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	st, err := storage.NewSessionStore(ctx, storage.SessionsSQLite, db, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := st.Store
	if _, ok, err := s.Find("unknown"); ok || err != nil {
		t.Fatalf("unknown token: %v %v", ok, err)
	}
	for _, data := range []string{"one", "two"} {
		if err := s.Commit("tok", []byte(data), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if b, ok, err := s.Find("tok"); !ok || err != nil || string(b) != data {
			t.Fatalf("after commit %q: %q %v %v", data, b, ok, err)
		}
	}
	if err := s.Commit("old", []byte("x"), time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Find("old"); ok || err != nil {
		t.Fatalf("expired token: %v %v", ok, err)
	}
	if err := s.Delete("tok"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Find("tok"); ok || err != nil {
		t.Fatalf("deleted token: %v %v", ok, err)
	}
}
