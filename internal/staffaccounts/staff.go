// Package staffaccounts keeps the box-office accounts: clerks and supervisors, their password and PIN
// hashes (argon2id; bcrypt from earlier versions is upgraded at the next sign-in), the lock-outs
// after repeated failures (lock.go), and the session epoch that ends every sign-in of an account.
//
// Everything lives in the database, so every replica agrees on it.
package staffaccounts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Role is what a staff member may do.
type Role string

const (
	// Clerk works the counter.
	Clerk Role = "clerk"
	// Supervisor may also approve with a PIN, end sessions and unlock accounts.
	Supervisor Role = "supervisor"
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == Clerk || r == Supervisor }

// Label is the role's name for people.
func (r Role) Label() string {
	if r == Supervisor {
		return "Supervisor"
	}
	return "Clerk"
}

// Account is a staff member.
type Account struct {
	Username string
	Name     string
	Role     Role
	Disabled bool
	HasPIN   bool
	// PINLength is the number of digits of the PIN: 0 when not known (set before it was
	// recorded, and not used for an approval since).
	PINLength int
	// SessionEpoch is written into a sign-in; a sign-in with another epoch has been ended.
	SessionEpoch int64
	// LockedUntil is when the latest lock of the account ends: a sign-in lock of any client,
	// or the lock of its PIN (zero: none; List and Get fill it in).
	LockedUntil time.Time
	// Failures counts the recent failed attempts of every client and of the PIN that have not
	// locked yet.
	Failures int
}

// ShortPIN reports a PIN that has fewer digits than new PINs must have, or whose length is not
// known: it still approves, but its owner should set a new one.
func (a Account) ShortPIN() bool { return a.HasPIN && a.PINLength < MinPINLength }

// IsSupervisor reports whether a is an enabled supervisor.
func (a Account) IsSupervisor() bool { return a.Role == Supervisor && !a.Disabled }

var (
	// ErrBadCredentials: unknown user, disabled account, or wrong password or PIN (never said which).
	ErrBadCredentials = errors.New("staff: wrong username or password")
	// ErrLocked: too many failures for this username from this client, or for this PIN; see
	// LockedError for until when.
	ErrLocked = errors.New("staff: locked after too many failed attempts")
	// ErrNotSupervisor: the account may not approve.
	ErrNotSupervisor = errors.New("staff: not a supervisor")
	// ErrInvalid: a username, name, role, password or PIN that cannot be stored.
	ErrInvalid = errors.New("staff: invalid account data")
	// ErrNotFound: no such account.
	ErrNotFound = errors.New("staff: no such account")
)

// LockedError says until when a username is locked. errors.Is(err, ErrLocked) holds.
type LockedError struct{ Until time.Time }

func (e *LockedError) Error() string {
	return fmt.Sprintf("%v until %s", ErrLocked, e.Until.UTC().Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrLocked) hold.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Limits of the data and the lock-out.
const (
	MinPasswordLength = 10
	MaxPasswordLength = 128
	MinPINLength      = 6 // new PINs; shorter ones made earlier still approve (Account.ShortPIN)
	MaxPINLength      = 8
	MaxUsernameLength = 64
	// MaxFailures failed attempts of one key within LockFor lock the key for LockFor (lock.go).
	// After a lock every further failure locks it again, each time for twice as long, up to
	// MaxLockFor, until a success, an Unlock, or StrikeMemory after the last lock ended.
	MaxFailures  = 5
	LockFor      = 15 * time.Minute
	MaxLockFor   = 24 * time.Hour
	StrikeMemory = 24 * time.Hour
)

// Store reads and writes staff accounts.
type Store struct {
	db     *sql.DB
	params Params
	now    func() time.Time

	dummyOnce sync.Once
	dummy     string // a hash of nothing, compared against for unknown users
}

// New returns a store on db (SQLite or PostgreSQL: the SQL is common) hashing with DefaultParams.
func New(db *sql.DB) *Store { return &Store{db: db, params: DefaultParams, now: time.Now} }

// WithParams sets the argon2id parameters of new hashes (zero: DefaultParams) and returns s.
func (s *Store) WithParams(p Params) *Store {
	s.params = p.orDefault()
	return s
}

// SetClock replaces the clock of the lock-out (tests).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// NewAccount is what Save stores.
type NewAccount struct {
	Username string
	Name     string
	Password string
	Role     Role   // "" is Clerk
	PIN      string // supervisors only, 6-8 digits; "" keeps the PIN the account has
	// PasswordHash and PINHash, when set, are argon2id PHC strings stored as they are in place
	// of hashing Password and PIN: for accounts whose secrets are fixed and published (the demo
	// accounts), hashed once instead of at every start. A hash with other parameters than the
	// store's is replaced at the next sign-in, like any older hash. With a PINHash, PIN is the
	// PIN it was made from when known (its length is recorded), else "".
	PasswordHash string
	PINHash      string
}

// Normalize is the form usernames are stored and compared in.
func Normalize(username string) string { return strings.ToLower(strings.TrimSpace(username)) }

// Put creates or replaces a clerk account (name and password).
func (s *Store) Put(ctx context.Context, username, name, password string) error {
	return s.Save(ctx, NewAccount{Username: username, Name: name, Password: password, Role: Clerk})
}

// Save creates or replaces an account. A replaced account is enabled again and its lock-outs
// lifted; its PIN is kept unless a new one is given (a clerk's PIN is dropped).
func (s *Store) Save(ctx context.Context, a NewAccount) error {
	username := Normalize(a.Username)
	name := strings.TrimSpace(a.Name)
	if a.Role == "" {
		a.Role = Clerk
	}
	if err := a.check(username, name); err != nil {
		return err
	}
	hash, err := s.hashOrGiven(a.Password, a.PasswordHash)
	if err != nil {
		return err
	}
	pinHash := ""
	if a.PIN != "" || a.PINHash != "" {
		if pinHash, err = s.hashOrGiven(a.PIN, a.PINHash); err != nil {
			return err
		}
	}
	pinLength := len(a.PIN) // 0 for a given hash of an unknown PIN
	if err := s.store(ctx, username, name, hash, a.Role, pinHash, pinLength); err != nil {
		return fmt.Errorf("store staff account: %w", err)
	}
	return nil
}

// check refuses an account that cannot be saved: username (normalized) and name missing or
// too long, a password out of bounds, an unknown role, a PIN of a clerk or not of digits.
func (a NewAccount) check(username, name string) error {
	n := utf8.RuneCountInString(a.Password)
	switch {
	case username == "" || len(username) > MaxUsernameLength || strings.ContainsAny(username, " \t\r\n"):
		return fmt.Errorf("%w: a username is 1-%d characters without spaces", ErrInvalid, MaxUsernameLength)
	case name == "" || len(name) > 200:
		return fmt.Errorf("%w: a name is required (at most 200 characters)", ErrInvalid)
	case a.PasswordHash == "" && (n < MinPasswordLength || n > MaxPasswordLength): // a hash's length was checked when it was made
		return fmt.Errorf("%w: a password is %d-%d characters", ErrInvalid, MinPasswordLength, MaxPasswordLength)
	case !a.Role.Valid():
		return fmt.Errorf("%w: role %q (want clerk or supervisor)", ErrInvalid, a.Role)
	case (a.PIN != "" || a.PINHash != "") && a.Role != Supervisor:
		return fmt.Errorf("%w: only supervisors have a PIN", ErrInvalid)
	case a.PIN != "" && !ValidPIN(a.PIN):
		return fmt.Errorf("%w: a PIN is %d-%d digits", ErrInvalid, MinPINLength, MaxPINLength)
	}
	return nil
}

// store writes the account and lifts its lock-outs in one transaction.
func (s *Store) store(ctx context.Context, username, name, hash string, role Role, pinHash string, pinLength int) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO staff_accounts (username, name, password_hash, created_at, role, pin_hash, pin_length, disabled)
		VALUES ($1,$2,$3,$4,$5,$6,$7,0)
		ON CONFLICT (username) DO UPDATE SET name = excluded.name, password_hash = excluded.password_hash, role = excluded.role,
			pin_hash = CASE WHEN excluded.role <> 'supervisor' THEN '' WHEN excluded.pin_hash = '' THEN staff_accounts.pin_hash ELSE excluded.pin_hash END,
			pin_length = CASE WHEN excluded.role <> 'supervisor' THEN 0 WHEN excluded.pin_hash = '' THEN staff_accounts.pin_length ELSE excluded.pin_length END,
			disabled = 0`,
		username, name, hash, s.now().UnixMilli(), string(role), pinHash, pinLength)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM staff_locks WHERE username = $1`, username); err != nil {
		return err
	}
	return tx.Commit()
}

// hashOrGiven is the stored form of a secret: given (a PHC string made earlier, checked to be a
// readable argon2id hash), or secret hashed with the store's parameters.
func (s *Store) hashOrGiven(secret, given string) (string, error) {
	if given == "" {
		return hashSecret(secret, s.params)
	}
	if _, _, _, err := decodeArgon2(given); err != nil {
		return "", fmt.Errorf("%w: a given hash must be an argon2id PHC string: %w", ErrInvalid, err)
	}
	return given, nil
}

// ValidPIN reports whether pin can be a new PIN: 6-8 ASCII digits.
func ValidPIN(pin string) bool {
	if len(pin) < MinPINLength || len(pin) > MaxPINLength {
		return false
	}
	for i := 0; i < len(pin); i++ {
		if pin[i] < '0' || pin[i] > '9' {
			return false
		}
	}
	return true
}

// accountsWithLocks reads accounts with the lock state of all their keys: every client's
// sign-in lock, and the PIN's of an account that has one. $1 is now, $2 the start of the
// failure window (unix milliseconds).
const accountsWithLocks = `SELECT a.username, a.name, a.role, a.disabled, a.pin_hash <> '', a.pin_length, a.session_epoch,
		COALESCE(l.locked_until, 0), COALESCE(l.failures, 0)
	FROM staff_accounts a LEFT JOIN (
		SELECT k.username, MAX(k.locked_until) AS locked_until,
			SUM(CASE WHEN k.locked_until <= $1 AND k.updated_at >= $2 THEN k.failures ELSE 0 END) AS failures
		FROM staff_locks k JOIN staff_accounts o ON o.username = k.username
		WHERE k.kind = 'signin' OR o.pin_hash <> ''
		GROUP BY k.username) l ON l.username = a.username`

func (s *Store) scanAccount(row interface{ Scan(...any) error }) (Account, error) {
	var a Account
	var role string
	var disabled, lockedUntil int64
	if err := row.Scan(&a.Username, &a.Name, &role, &disabled, &a.HasPIN, &a.PINLength, &a.SessionEpoch, &lockedUntil, &a.Failures); err != nil {
		return Account{}, err
	}
	a.Role, a.Disabled = Role(role), disabled != 0
	if lockedUntil > s.now().UnixMilli() {
		a.LockedUntil = time.UnixMilli(lockedUntil)
	}
	return a, nil
}

// lockWindow is the arguments $1 and $2 of accountsWithLocks.
func (s *Store) lockWindow() (now, since int64) {
	t := s.now()
	return t.UnixMilli(), t.Add(-LockFor).UnixMilli()
}

// Get returns the account of username (ErrNotFound when none).
func (s *Store) Get(ctx context.Context, username string) (Account, error) {
	now, since := s.lockWindow()
	a, err := s.scanAccount(s.db.QueryRowContext(ctx, accountsWithLocks+` WHERE a.username = $3`, now, since, Normalize(username)))
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, ErrNotFound
	}
	if err != nil {
		return Account{}, fmt.Errorf("read staff account: %w", err)
	}
	return a, nil
}

// List returns every account by username, with its lock state.
func (s *Store) List(ctx context.Context) ([]Account, error) {
	now, since := s.lockWindow()
	rows, err := s.db.QueryContext(ctx, accountsWithLocks+` ORDER BY a.username`, now, since)
	if err != nil {
		return nil, fmt.Errorf("list staff accounts: %w", err)
	}
	defer rows.Close()
	var out []Account
	for rows.Next() {
		a, err := s.scanAccount(rows)
		if err != nil {
			return nil, fmt.Errorf("read staff account: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Authenticate checks a username and password typed at client (the caller's name for where
// the attempt comes from: an address, or an IPv6 /64). Failures count per username and client,
// so a client only ever locks itself out (lock.go): a locked pair is refused before the
// password is looked at. A success clears the pair's count and replaces a hash made with older
// parameters (or bcrypt).
func (s *Store) Authenticate(ctx context.Context, username, password, client string) (Account, error) {
	username = clipUsername(username)
	return s.check(ctx, username, password, "password_hash", signInKey(username, client))
}

// Approve checks a supervisor's username and PIN (a refund above the limit). It succeeds only
// for an enabled supervisor with the right PIN. Wrong PINs count against the PIN of the name
// typed, from every client together, never against the supervisor's sign-in; so do the
// attempts on a clerk's or an unknown name, which lock the same way (a lock tells nothing).
// Errors: ErrBadCredentials, ErrLocked (a *LockedError), ErrNotSupervisor (the name is a
// clerk's). A success records the PIN's length when it was not known.
func (s *Store) Approve(ctx context.Context, username, pin string) (Account, error) {
	username = clipUsername(username)
	a, err := s.check(ctx, username, pin, "pin_hash", pinKey(username))
	if err != nil || a.PINLength != 0 {
		return a, err
	}
	a.PINLength = len(pin)
	if _, err := s.db.ExecContext(ctx, `UPDATE staff_accounts SET pin_length = $1 WHERE username = $2 AND pin_length = 0`, a.PINLength, username); err != nil {
		return a, fmt.Errorf("record PIN length: %w", err)
	}
	return a, nil
}

// clipUsername is username as stored and compared, at most MaxUsernameLength bytes.
func clipUsername(username string) string {
	username = Normalize(username)
	if len(username) > MaxUsernameLength {
		username = username[:MaxUsernameLength]
	}
	return username
}

// check is Authenticate (column password_hash) and Approve (pin_hash), counting against key.
func (s *Store) check(ctx context.Context, username, secret, column string, key lockKey) (Account, error) {
	// The attempt is counted before the secret is compared, so parallel guesses cannot get
	// past the limit; a success clears the count again.
	attempt, err := s.countAttempt(ctx, key)
	if err != nil {
		return Account{}, err
	}
	var a Account
	var hash, role string
	var disabled int64
	err = s.db.QueryRowContext(ctx, `SELECT username, name, role, disabled, pin_hash <> '', pin_length, session_epoch, `+column+`
		FROM staff_accounts WHERE username = $1`, username).Scan(&a.Username, &a.Name, &role, &disabled, &a.HasPIN, &a.PINLength, &a.SessionEpoch, &hash)
	a.Role, a.Disabled = Role(role), disabled != 0
	switch {
	case errors.Is(err, sql.ErrNoRows):
		s.compareDummy(secret)
		return Account{}, s.failed(ctx, key, attempt)
	case err != nil:
		return Account{}, fmt.Errorf("read staff account: %w", err)
	case column == "pin_hash" && !a.Disabled && a.Role != Supervisor:
		s.compareDummy(secret)
		if err := s.failed(ctx, key, attempt); !errors.Is(err, ErrBadCredentials) {
			return Account{}, err // locked like any other name
		}
		return Account{}, ErrNotSupervisor
	case a.Disabled || hash == "":
		s.compareDummy(secret)
		return Account{}, s.failed(ctx, key, attempt)
	}
	ok, stale, err := verifySecret(hash, secret, s.params)
	if err != nil && !errors.Is(err, errBadHash) {
		return Account{}, err
	}
	if !ok {
		return Account{}, s.failed(ctx, key, attempt)
	}
	if err := s.clear(ctx, key); err != nil {
		return Account{}, err
	}
	if stale {
		s.upgrade(ctx, username, column, hash, secret)
	}
	return a, nil
}

// upgrade replaces an old hash (bcrypt, other parameters) by one with the current parameters,
// only if it is still the one just checked. A failure is harmless: the old hash still works.
func (s *Store) upgrade(ctx context.Context, username, column, old, secret string) {
	h, err := hashSecret(secret, s.params)
	if err != nil {
		return
	}
	_, _ = s.db.ExecContext(ctx, `UPDATE staff_accounts SET `+column+` = $1 WHERE username = $2 AND `+column+` = $3`, h, username, old)
}

func (s *Store) compareDummy(secret string) {
	s.dummyOnce.Do(func() { s.dummy, _ = hashSecret("no account has this password", s.params) })
	_, _, _ = verifySecret(s.dummy, secret, s.params)
}

// Unlock lifts every lock of username and forgets its failures: its sign-in from every client
// and its PIN.
func (s *Store) Unlock(ctx context.Context, username string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM staff_locks WHERE username = $1`, Normalize(username)); err != nil {
		return fmt.Errorf("unlock staff account: %w", err)
	}
	return nil
}

// EndSessions ends every sign-in of username (on every replica, at its next request) by raising
// its session epoch. It returns the new epoch.
func (s *Store) EndSessions(ctx context.Context, username string) (int64, error) {
	var epoch int64
	err := s.db.QueryRowContext(ctx, `UPDATE staff_accounts SET session_epoch = session_epoch + 1 WHERE username = $1 RETURNING session_epoch`,
		Normalize(username)).Scan(&epoch)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("end staff sessions: %w", err)
	}
	return epoch, nil
}

// Disable disables username and ends its sign-ins. It reports whether an enabled account was
// disabled.
func (s *Store) Disable(ctx context.Context, username string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE staff_accounts SET disabled = 1, session_epoch = session_epoch + 1 WHERE username = $1 AND disabled = 0`,
		Normalize(username))
	if err != nil {
		return false, fmt.Errorf("disable staff account: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// HasPassword reports whether username exists and password is its password (no lock-out
// counting: for start-up checks such as finding the well-known demo password).
func (s *Store) HasPassword(ctx context.Context, username, password string) (bool, error) {
	var hash string
	err := s.db.QueryRowContext(ctx, `SELECT password_hash FROM staff_accounts WHERE username = $1`, Normalize(username)).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read staff account: %w", err)
	}
	ok, _, err := verifySecret(hash, password, s.params)
	if err != nil && !errors.Is(err, errBadHash) {
		return false, err
	}
	return ok, nil
}
