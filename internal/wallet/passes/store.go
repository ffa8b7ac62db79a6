// Package passes keeps the Apple Wallet passes issued for bookings and the devices registered
// for them through Apple's PassKit web service (tables wallet_passes, wallet_registrations and
// wallet_pass_clock, migration 00023), on SQLite or PostgreSQL.
//
// A pass's authentication token is derived from the store's secret key and its serial number,
// so a pass rebuilt after a booking change carries the same token the device already holds;
// the database keeps only the token's SHA-256.
package passes

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrUnknownPass says no pass of that type and serial number was issued here.
var ErrUnknownPass = errors.New("passes: unknown pass")

// ErrUnauthorized says the authentication token presented for a pass is not its own.
var ErrUnauthorized = errors.New("passes: wrong authentication token")

// Pass is one issued pass.
type Pass struct {
	PassType      string
	Serial        string
	CinemaID      string
	BookingNumber int64
	UpdatedAt     time.Time // Last-Modified of the pass served
	UpdateTag     string
	Voided        bool
}

// Issued is what Ensure gives the pass builder: the pass and the token to put in pass.json.
type Issued struct {
	Pass
	Token   string // the authenticationToken; never stored
	Created bool   // false when the booking already had a pass of that type
}

// Store is the store of passes and device registrations. It owns the tables' SQL.
type Store struct {
	db  *sql.DB
	key []byte
	now func() time.Time
}

// minKeyLen is the shortest token key accepted: the key is all that makes tokens unguessable.
const minKeyLen = 32

// NewStore is the store on db (SQLite or PostgreSQL, migrated). tokenKey (at least 32 bytes,
// kept outside the database) derives the passes' authentication tokens; changing it makes the
// tokens of passes already issued unrecoverable, though they still authenticate.
func NewStore(db *sql.DB, tokenKey []byte) (*Store, error) {
	if len(tokenKey) < minKeyLen {
		return nil, fmt.Errorf("passes: token key has %d bytes, want at least %d", len(tokenKey), minKeyLen)
	}
	return &Store{db: db, key: append([]byte(nil), tokenKey...), now: time.Now}, nil
}

// SetClock replaces the store's clock; tests use it to step time.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// Token is the authentication token of the pass with that type and serial number: what
// pass.json's authenticationToken carries whenever the pass is built.
func (s *Store) Token(passType, serial string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(passType))
	m.Write([]byte{0}) // a separator, so ("ab","c") and ("a","bc") differ
	m.Write([]byte(serial))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func hashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// Ensure returns the booking's pass of that type, issuing one with a new random serial number
// when it has none. Concurrent calls for one booking return the same pass.
func (s *Store) Ensure(ctx context.Context, passType, cinemaID string, number int64) (Issued, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return Issued{}, fmt.Errorf("pass serial: %w", err)
	}
	serial := hex.EncodeToString(b)
	now := s.now().UnixMilli()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Issued{}, fmt.Errorf("issue pass for %s/%d: %w", cinemaID, number, err)
	}
	defer tx.Rollback()
	tag, err := nextTag(ctx, tx)
	if err != nil {
		return Issued{}, err
	}
	// ON CONFLICT DO NOTHING rather than a read first: a second caller racing this one gets the
	// first one's pass instead of a unique-index error.
	res, err := tx.ExecContext(ctx, `INSERT INTO wallet_passes (pass_type_id, serial_number, cinema_id, booking_number, auth_token_hash, update_tag, updated_at, voided, created_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,FALSE,$8) ON CONFLICT DO NOTHING`,
		passType, serial, cinemaID, number, hashToken(s.Token(passType, serial)), tag, now, now)
	if err != nil {
		return Issued{}, fmt.Errorf("issue pass for %s/%d: %w", cinemaID, number, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return Issued{}, fmt.Errorf("issue pass for %s/%d: %w", cinemaID, number, err)
	}
	p, err := scanPass(tx.QueryRowContext(ctx, selectPass+` WHERE cinema_id = $1 AND booking_number = $2 AND pass_type_id = $3`, cinemaID, number, passType))
	if err != nil {
		return Issued{}, fmt.Errorf("read pass of %s/%d: %w", cinemaID, number, err)
	}
	// An existing pass leaves the transaction to roll back, so asking again spends no tag.
	if n == 1 {
		if err := tx.Commit(); err != nil {
			return Issued{}, fmt.Errorf("issue pass for %s/%d: %w", cinemaID, number, err)
		}
	}
	return Issued{Pass: p, Token: s.Token(p.PassType, p.Serial), Created: n == 1}, nil
}

const selectPass = `SELECT pass_type_id, serial_number, cinema_id, booking_number, update_tag, updated_at, voided FROM wallet_passes`

func scanPass(row *sql.Row) (Pass, error) {
	var p Pass
	var tag, at int64
	err := row.Scan(&p.PassType, &p.Serial, &p.CinemaID, &p.BookingNumber, &tag, &at, &p.Voided)
	if errors.Is(err, sql.ErrNoRows) {
		return p, ErrUnknownPass
	}
	if err != nil {
		return p, err
	}
	p.UpdateTag = strconv.FormatInt(tag, 10)
	p.UpdatedAt = time.UnixMilli(at)
	return p, nil
}

// Lookup is the pass with that type and serial number, or ErrUnknownPass.
func (s *Store) Lookup(ctx context.Context, passType, serial string) (Pass, error) {
	p, err := scanPass(s.db.QueryRowContext(ctx, selectPass+` WHERE pass_type_id = $1 AND serial_number = $2`, passType, serial))
	if err != nil && !errors.Is(err, ErrUnknownPass) {
		return p, fmt.Errorf("read pass %s/%s: %w", passType, serial, err)
	}
	return p, err
}

// Authenticate checks token against the pass's: nil, ErrUnknownPass or ErrUnauthorized.
func (s *Store) Authenticate(ctx context.Context, passType, serial, token string) error {
	var stored string
	err := s.db.QueryRowContext(ctx, `SELECT auth_token_hash FROM wallet_passes WHERE pass_type_id = $1 AND serial_number = $2`, passType, serial).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrUnknownPass
	}
	if err != nil {
		return fmt.Errorf("authenticate pass %s/%s: %w", passType, serial, err)
	}
	// Constant time, so response times do not reveal how much of a guessed hash matched.
	if subtle.ConstantTimeCompare([]byte(stored), []byte(hashToken(token))) != 1 {
		return ErrUnauthorized
	}
	return nil
}

// LastModified is when the pass last changed, to whole seconds as HTTP dates carry it.
func (s *Store) LastModified(ctx context.Context, passType, serial string) (time.Time, error) {
	p, err := s.Lookup(ctx, passType, serial)
	if err != nil {
		return time.Time{}, err
	}
	return p.UpdatedAt.Truncate(time.Second), nil
}

// Register records that the device wants pushes for the pass at pushToken. created is false
// when the device was already registered for it; its push token is then brought up to date,
// since a restored phone keeps its library id but gets a new token.
func (s *Store) Register(ctx context.Context, device, pushToken, passType, serial string) (created bool, err error) {
	// Insert-or-nothing then update, rather than an upsert: RowsAffected of DO NOTHING tells a
	// new row from an old one on both drivers, which an upsert's count does not.
	res, err := s.db.ExecContext(ctx, `INSERT INTO wallet_registrations (device_library_id, pass_type_id, serial_number, push_token, created_at)
		VALUES ($1,$2,$3,$4,$5) ON CONFLICT DO NOTHING`, device, passType, serial, pushToken, s.now().UnixMilli())
	if err != nil {
		return false, fmt.Errorf("register device %s for %s/%s: %w", device, passType, serial, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("register device %s for %s/%s: %w", device, passType, serial, err)
	}
	if n == 1 {
		return true, nil
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE wallet_registrations SET push_token = $1
		WHERE device_library_id = $2 AND pass_type_id = $3 AND serial_number = $4`, pushToken, device, passType, serial); err != nil {
		return false, fmt.Errorf("update push token of device %s: %w", device, err)
	}
	return false, nil
}

// Unregister removes the device's registration for the pass; removing one that does not exist
// is not an error, as Apple's web service answers 200 either way.
func (s *Store) Unregister(ctx context.Context, device, passType, serial string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM wallet_registrations
		WHERE device_library_id = $1 AND pass_type_id = $2 AND serial_number = $3`, device, passType, serial); err != nil {
		return fmt.Errorf("unregister device %s from %s/%s: %w", device, passType, serial, err)
	}
	return nil
}

// ForgetPushToken removes every registration using pushToken (APNs said it is no longer valid)
// and returns how many there were.
func (s *Store) ForgetPushToken(ctx context.Context, pushToken string) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM wallet_registrations WHERE push_token = $1`, pushToken)
	if err != nil {
		return 0, fmt.Errorf("forget push token: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("forget push token: %w", err)
	}
	return n, nil
}

// SerialsUpdatedSince lists the serial numbers of the device's passes of that type changed
// after tag ("" or a tag not given by this store: all of them), and the tag to ask with next
// time. With nothing changed the list is empty and the tag comes back as it was.
func (s *Store) SerialsUpdatedSince(ctx context.Context, device, passType, tag string) (serials []string, lastUpdated string, err error) {
	since, perr := strconv.ParseInt(tag, 10, 64)
	if perr != nil || since < 0 {
		since = -1 // a tag we never gave out: the device gets everything rather than nothing
	}
	rows, err := s.db.QueryContext(ctx, `SELECT p.serial_number, p.update_tag FROM wallet_registrations r
		JOIN wallet_passes p ON p.pass_type_id = r.pass_type_id AND p.serial_number = r.serial_number
		WHERE r.device_library_id = $1 AND r.pass_type_id = $2 AND p.update_tag > $3
		ORDER BY p.update_tag, p.serial_number`, device, passType, since)
	if err != nil {
		return nil, tag, fmt.Errorf("serials updated for device %s: %w", device, err)
	}
	defer rows.Close()
	latest := since
	for rows.Next() {
		var serial string
		var t int64
		if err := rows.Scan(&serial, &t); err != nil {
			return nil, tag, fmt.Errorf("serials updated for device %s: %w", device, err)
		}
		serials = append(serials, serial)
		latest = max(latest, t)
	}
	if err := rows.Err(); err != nil {
		return nil, tag, fmt.Errorf("serials updated for device %s: %w", device, err)
	}
	if len(serials) == 0 {
		return nil, tag, nil
	}
	return serials, strconv.FormatInt(latest, 10), nil
}

// nextTag takes the next update tag. The counter row stays locked until tx ends, so on
// PostgreSQL a later change cannot commit a smaller tag than one a device has already seen.
func nextTag(ctx context.Context, tx *sql.Tx) (int64, error) {
	var tag int64
	if err := tx.QueryRowContext(ctx, `UPDATE wallet_pass_clock SET tag = tag + 1 WHERE id = 1 RETURNING tag`).Scan(&tag); err != nil {
		return 0, fmt.Errorf("next pass update tag: %w", err)
	}
	return tag, nil
}

// bumpUpdatedAt moves updated_at to now, and at least to the next whole second: Last-Modified
// and If-Modified-Since carry whole seconds, so two versions within a second would look alike.
const bumpUpdatedAt = `updated_at = CASE WHEN $2 >= (updated_at / 1000 + 1) * 1000 THEN $2 ELSE (updated_at / 1000 + 1) * 1000 END`

// Touch marks the booking's passes (voided ones excepted) changed at `at` and returns the
// distinct push tokens of the devices registered for them, for the caller to push to.
func (s *Store) Touch(ctx context.Context, cinemaID string, number int64, at time.Time) ([]string, error) {
	return s.change(ctx, fmt.Sprintf("touch passes of %s/%d", cinemaID, number), at,
		`UPDATE wallet_passes SET update_tag = $1, `+bumpUpdatedAt+` WHERE cinema_id = $3 AND booking_number = $4 AND voided = FALSE`,
		`SELECT DISTINCT r.push_token FROM wallet_registrations r
		JOIN wallet_passes p ON p.pass_type_id = r.pass_type_id AND p.serial_number = r.serial_number
		WHERE p.cinema_id = $1 AND p.booking_number = $2 AND p.voided = FALSE ORDER BY r.push_token`,
		[]any{cinemaID, number}, nil)
}

// Void marks the pass void (a removed ticket's or a cancelled booking's) and changed, and
// returns the push tokens of the devices registered for it, so they fetch the voided pass.
// Voiding an unknown pass is ErrUnknownPass.
func (s *Store) Void(ctx context.Context, passType, serial string) ([]string, error) {
	return s.change(ctx, fmt.Sprintf("void pass %s/%s", passType, serial), s.now(),
		`UPDATE wallet_passes SET update_tag = $1, voided = TRUE, `+bumpUpdatedAt+` WHERE pass_type_id = $3 AND serial_number = $4`,
		`SELECT DISTINCT push_token FROM wallet_registrations WHERE pass_type_id = $1 AND serial_number = $2 ORDER BY push_token`,
		[]any{passType, serial}, ErrUnknownPass)
}

// change runs update (args: tag, at, where...) and then tokens (args: where...) in one
// transaction with a fresh tag; when update changes no row the answer is ifNone.
func (s *Store) change(ctx context.Context, what string, at time.Time, update, tokens string, where []any, ifNone error) ([]string, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback()
	tag, err := nextTag(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	res, err := tx.ExecContext(ctx, update, append([]any{tag, at.UnixMilli()}, where...)...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if n == 0 {
		// Nothing changed, so the tag need not be spent; rolling back keeps the counter dense.
		return nil, ifNone
	}
	rows, err := tx.QueryContext(ctx, tokens, where...)
	if err != nil {
		return nil, fmt.Errorf("%s: push tokens: %w", what, err)
	}
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%s: push tokens: %w", what, err)
		}
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: push tokens: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// PassOf is the booking's pass of that type, or ErrUnknownPass when none was issued.
func (s *Store) PassOf(ctx context.Context, passType, cinemaID string, number int64) (Pass, error) {
	p, err := scanPass(s.db.QueryRowContext(ctx, selectPass+` WHERE cinema_id = $1 AND booking_number = $2 AND pass_type_id = $3`, cinemaID, number, passType))
	if err != nil && !errors.Is(err, ErrUnknownPass) {
		return p, fmt.Errorf("pass of %s/%d: %w", cinemaID, number, err)
	}
	return p, err
}
