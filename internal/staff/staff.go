// Package staff keeps the box-office accounts: who may look a booking up by its number alone.
package staff

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
)

// Account is a staff member.
type Account struct {
	Username string
	Name     string
}

var (
	// ErrBadCredentials: unknown user or wrong password (never said which).
	ErrBadCredentials = errors.New("staff: wrong username or password")
	// ErrInvalid: a username, name or password that cannot be stored.
	ErrInvalid = errors.New("staff: invalid account data")
)

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 10

// Store reads and writes staff accounts.
type Store struct{ db *sql.DB }

// New returns a store on db (SQLite or PostgreSQL: the SQL is common).
func New(db *sql.DB) *Store { return &Store{db: db} }

// Put creates or replaces an account.
func (s *Store) Put(ctx context.Context, username, name, password string) error {
	username = strings.ToLower(strings.TrimSpace(username))
	if username == "" || len(username) > 64 || strings.TrimSpace(name) == "" || utf8.RuneCountInString(password) < MinPasswordLength || len(password) > 72 {
		return fmt.Errorf("%w: username 1-64 characters, a name, password %d-72 characters", ErrInvalid, MinPasswordLength)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO staff_accounts (username, name, password_hash, created_at) VALUES ($1,$2,$3,$4)
		ON CONFLICT (username) DO UPDATE SET name = excluded.name, password_hash = excluded.password_hash`,
		username, strings.TrimSpace(name), string(hash), time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("store staff account: %w", err)
	}
	return nil
}

// dummyHash is compared against when the user is unknown, so both answers take as long.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("not-a-real-password"), bcrypt.DefaultCost)

// Authenticate checks a username and password.
func (s *Store) Authenticate(ctx context.Context, username, password string) (Account, error) {
	username = strings.ToLower(strings.TrimSpace(username))
	var a Account
	var hash string
	err := s.db.QueryRowContext(ctx, `SELECT username, name, password_hash FROM staff_accounts WHERE username = $1`, username).Scan(&a.Username, &a.Name, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return Account{}, ErrBadCredentials
	}
	if err != nil {
		return Account{}, fmt.Errorf("read staff account: %w", err)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return Account{}, ErrBadCredentials
	}
	return a, nil
}
