package device

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Enrolment is a supervisor's decision that one browser is a counter or a kiosk. It is live
// until revoked; a revoked enrolment never comes back (enrolling again makes a new row).
type Enrolment struct {
	ID         int64
	DeviceID   string // the device cookie's id the enrolment was made for
	Name       string // typed by the supervisor, e.g. "Counter 2"
	Mode       Mode   // Counter or Kiosk
	Language   string // the default language code ("de"); "": the site's
	ReaderID   string // the provider's card reader the device takes cards on; "": none
	CinemaID   string // the cinema the device stands in (a kiosk never asks); "": any
	EnrolledBy string // staff username
	EnrolledAt time.Time
	RevokedAt  time.Time // zero: live
	RevokedBy  string
	// ReaderMove is the card reader this enrolment had until another terminal was enrolled
	// with it; zero when none was taken away.
	ReaderMove ReaderMove
}

// ReaderMove says that a card reader was taken from an enrolment for another terminal: a
// reader takes payments for one terminal at a time.
type ReaderMove struct {
	ReaderID string    // the reader the enrolment had
	To       string    // the name of the terminal that has it now
	At       time.Time // when
	By       string    // the supervisor who enrolled that terminal
}

// Moved reports whether the enrolment's reader was taken for another terminal.
func (m ReaderMove) Moved() bool { return m.ReaderID != "" }

// Live reports whether the enrolment still gives its device its mode.
func (e Enrolment) Live() bool { return e.RevokedAt.IsZero() }

var (
	// ErrNotFound: no enrolment with that id.
	ErrNotFound = errors.New("device: no such enrolment")
	// ErrAlreadyRevoked: the enrolment was revoked before.
	ErrAlreadyRevoked = errors.New("device: enrolment already revoked")
	// ErrInvalidEnrolment: a name, mode, device or supervisor that cannot be enrolled.
	ErrInvalidEnrolment = errors.New("device: invalid enrolment")
)

// MaxNameLength is the longest device name, in characters.
const MaxNameLength = 60

// DefaultCacheFor is how long Live trusts what it read. A revocation made through another
// Enrolments (another replica) takes effect at the first request after this; one made through
// the same Enrolments at once.
const DefaultCacheFor = 5 * time.Second

// EnrolmentsOptions tune an Enrolments.
type EnrolmentsOptions struct {
	CacheFor time.Duration    // 0: DefaultCacheFor; negative: no cache
	Now      func() time.Time // nil: time.Now
}

// Enrolments keeps the enrolments in the BFF's database (SQLite or PostgreSQL: the SQL is
// common) with a short in-memory cache of the rows devices ask about on every request.
type Enrolments struct {
	db       *sql.DB
	now      func() time.Time
	cacheFor time.Duration

	mu    sync.Mutex
	cache map[int64]cachedEnrolment
	// gen counts changes made through this store: a row read before a change is not cached
	// after it (a revocation racing a read must not be undone by the read's stale copy).
	gen uint64
}

type cachedEnrolment struct {
	e     Enrolment
	found bool
	until time.Time
}

// maxCached bounds the cache; past it, expired entries are dropped, and if that is not enough,
// all of them (the next requests read the rows again).
const maxCached = 4096

// NewEnrolments returns the store on db.
func NewEnrolments(db *sql.DB, o EnrolmentsOptions) *Enrolments {
	if o.CacheFor == 0 {
		o.CacheFor = DefaultCacheFor
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Enrolments{db: db, now: o.Now, cacheFor: o.CacheFor, cache: map[int64]cachedEnrolment{}}
}

// CleanName trims a typed device name and checks it: 1 to MaxNameLength characters, no
// control characters.
func CleanName(name string) (string, error) {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" || utf8.RuneCountInString(name) > MaxNameLength || !utf8.ValidString(name) ||
		strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("%w: a name of 1 to %d characters", ErrInvalidEnrolment, MaxNameLength)
	}
	return name, nil
}

// MaxLanguageLength is the longest language code an enrolment keeps.
const MaxLanguageLength = 35

// CleanLanguage checks a default language code: "" (the site's) or a BCP 47 tag of letters,
// digits and hyphens ("de", "en-GB"). Which languages the site speaks is the caller's business.
func CleanLanguage(code string) (string, error) {
	code = strings.TrimSpace(code)
	if code == "" {
		return "", nil
	}
	ok := len(code) <= MaxLanguageLength && code[0] != '-' && code[len(code)-1] != '-' && !strings.Contains(code, "--")
	for _, r := range code {
		ok = ok && (r == '-' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	}
	if !ok {
		return "", fmt.Errorf("%w: language %q", ErrInvalidEnrolment, code)
	}
	return code, nil
}

// Spec is what a supervisor enrols a device with.
type Spec struct {
	DeviceID string
	Name     string
	Mode     Mode
	Language string // "": the site's
	ReaderID string // "": no card reader
	CinemaID string // "": the device stands in no one cinema
	By       string // the supervisor
}

// Enrolled is what Enrol did: the new enrolment, the device's enrolments it replaced (revoked)
// and the other terminals' enrolments its card reader was taken from.
type Enrolled struct {
	Enrolment
	Replaced   []Enrolment
	ReaderFrom []Enrolment // as they were, with the reader, before it moved
}

// Enrol makes sp.DeviceID a counter or kiosk named sp.Name, with the default language (""
// for the site's), its card reader and its cinema, enrolled by the supervisor sp.By. Live
// enrolments of the same device are revoked in the same transaction (a device has at most
// one) and returned as replaced. A card reader serves one terminal at a time: a live
// enrolment of another device with sp.ReaderID loses it in the same transaction (it keeps a
// ReaderMove saying where it went).
func (s *Enrolments) Enrol(ctx context.Context, sp Spec) (Enrolled, error) {
	e, err := sp.enrolment(s.now())
	if err != nil {
		return Enrolled{}, err
	}
	out, err := s.enrolOnce(ctx, e)
	if err != nil && e.ReaderID != "" {
		// Another terminal was enrolled with the same reader at the same moment (the unique
		// index refused this one): once more, taking the reader from it.
		out, err = s.enrolOnce(ctx, e)
	}
	if err != nil {
		return Enrolled{}, err
	}
	for _, r := range append(append([]Enrolment(nil), out.Replaced...), out.ReaderFrom...) {
		s.forget(r.ID)
	}
	return out, nil
}

// enrolment checks sp and makes the enrolment it asks for, enrolled at now.
func (sp Spec) enrolment(now time.Time) (Enrolment, error) {
	name, err := CleanName(sp.Name)
	if err != nil {
		return Enrolment{}, err
	}
	language, err := CleanLanguage(sp.Language)
	if err != nil {
		return Enrolment{}, err
	}
	if sp.Mode != Counter && sp.Mode != Kiosk {
		return Enrolment{}, fmt.Errorf("%w: mode %q (counter or kiosk)", ErrInvalidEnrolment, sp.Mode)
	}
	if strings.TrimSpace(sp.DeviceID) == "" || strings.TrimSpace(sp.By) == "" {
		return Enrolment{}, fmt.Errorf("%w: a device and a supervisor are needed", ErrInvalidEnrolment)
	}
	return Enrolment{DeviceID: sp.DeviceID, Name: name, Mode: sp.Mode, Language: language, ReaderID: strings.TrimSpace(sp.ReaderID),
		CinemaID: strings.TrimSpace(sp.CinemaID), EnrolledBy: sp.By, EnrolledAt: time.UnixMilli(now.UnixMilli())}, nil
}

// enrolOnce stores e in one transaction: the device's live enrolments are revoked, the reader
// is taken from any other live enrolment, and the new row is written.
func (s *Enrolments) enrolOnce(ctx context.Context, e Enrolment) (Enrolled, error) {
	at := e.EnrolledAt.UnixMilli()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Enrolled{}, fmt.Errorf("device: enrol: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	out := Enrolled{Enrolment: e}
	if out.Replaced, err = queryEnrolments(ctx, tx, `WHERE device_id = $1 AND revoked_at = 0`, e.DeviceID); err != nil {
		return Enrolled{}, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE device_enrolments SET revoked_at = $1, revoked_by = $2 WHERE device_id = $3 AND revoked_at = 0`,
		at, e.EnrolledBy, e.DeviceID); err != nil {
		return Enrolled{}, fmt.Errorf("device: revoke the replaced enrolment: %w", err)
	}
	if out.ReaderFrom, err = takeReader(ctx, tx, e); err != nil {
		return Enrolled{}, err
	}
	if err := tx.QueryRowContext(ctx, `INSERT INTO device_enrolments (device_id, name, mode, language, reader_id, cinema_id, enrolled_by, enrolled_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8) RETURNING id`,
		e.DeviceID, e.Name, string(e.Mode), e.Language, e.ReaderID, e.CinemaID, e.EnrolledBy, at).Scan(&out.ID); err != nil {
		return Enrolled{}, fmt.Errorf("device: enrol: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Enrolled{}, fmt.Errorf("device: enrol: %w", err)
	}
	for i := range out.Replaced {
		out.Replaced[i].RevokedAt, out.Replaced[i].RevokedBy = e.EnrolledAt, e.EnrolledBy
	}
	return out, nil
}

// takeReader takes e's card reader from every other live enrolment that has it, noting where
// it went, and returns those enrolments as they were.
func takeReader(ctx context.Context, tx *sql.Tx, e Enrolment) ([]Enrolment, error) {
	if e.ReaderID == "" {
		return nil, nil
	}
	from, err := queryEnrolments(ctx, tx, `WHERE reader_id = $1 AND revoked_at = 0`, e.ReaderID)
	if err != nil || len(from) == 0 {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE device_enrolments SET reader_id = '', reader_moved_id = $1, reader_moved_to = $2,
		reader_moved_at = $3, reader_moved_by = $4 WHERE reader_id = $1 AND revoked_at = 0`,
		e.ReaderID, e.Name, e.EnrolledAt.UnixMilli(), e.EnrolledBy); err != nil {
		return nil, fmt.Errorf("device: take card reader %s from another terminal: %w", e.ReaderID, err)
	}
	return from, nil
}

// Revoke ends enrolment id, by the supervisor by. It returns the enrolment as it is now;
// ErrAlreadyRevoked (with the row) when it was revoked before, ErrNotFound when there is none.
func (s *Enrolments) Revoke(ctx context.Context, id int64, by string) (Enrolment, error) {
	if strings.TrimSpace(by) == "" {
		return Enrolment{}, fmt.Errorf("%w: a supervisor is needed", ErrInvalidEnrolment)
	}
	defer s.forget(id)
	res, err := s.db.ExecContext(ctx, `UPDATE device_enrolments SET revoked_at = $1, revoked_by = $2 WHERE id = $3 AND revoked_at = 0`,
		s.now().UnixMilli(), by, id)
	if err != nil {
		return Enrolment{}, fmt.Errorf("device: revoke enrolment %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return Enrolment{}, fmt.Errorf("device: revoke enrolment %d: %w", id, err)
	}
	e, err := s.Get(ctx, id)
	if err != nil {
		return Enrolment{}, err
	}
	if n == 0 {
		return e, ErrAlreadyRevoked
	}
	return e, nil
}

// SetLanguage changes the default language of the live enrolment id ("" for the site's). It
// returns the enrolment as it is now; ErrAlreadyRevoked (with the row) when it was revoked,
// ErrNotFound when there is none. The change counts at once through this store, through
// another within its cache time.
func (s *Enrolments) SetLanguage(ctx context.Context, id int64, language string) (Enrolment, error) {
	language, err := CleanLanguage(language)
	if err != nil {
		return Enrolment{}, err
	}
	defer s.forget(id)
	res, err := s.db.ExecContext(ctx, `UPDATE device_enrolments SET language = $1 WHERE id = $2 AND revoked_at = 0`, language, id)
	if err != nil {
		return Enrolment{}, fmt.Errorf("device: set the language of enrolment %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return Enrolment{}, fmt.Errorf("device: set the language of enrolment %d: %w", id, err)
	}
	e, err := s.Get(ctx, id)
	if err != nil {
		return Enrolment{}, err
	}
	if n == 0 {
		return e, ErrAlreadyRevoked
	}
	return e, nil
}

// Get reads enrolment id from the database (no cache).
func (s *Enrolments) Get(ctx context.Context, id int64) (Enrolment, error) {
	list, err := queryEnrolments(ctx, s.db, `WHERE id = $1`, id)
	if err != nil {
		return Enrolment{}, err
	}
	if len(list) == 0 {
		return Enrolment{}, fmt.Errorf("%w: %d", ErrNotFound, id)
	}
	return list[0], nil
}

// Live returns enrolment id if it is live and was made for deviceID; ok is false otherwise
// (revoked, unknown, or another device's). What it read is kept for the cache time.
func (s *Enrolments) Live(ctx context.Context, id int64, deviceID string) (e Enrolment, ok bool, err error) {
	if id <= 0 {
		return Enrolment{}, false, nil
	}
	now := s.now()
	s.mu.Lock()
	c, hit := s.cache[id]
	gen := s.gen
	s.mu.Unlock()
	if !hit || !now.Before(c.until) {
		e, err := s.Get(ctx, id)
		found := err == nil
		if err != nil && !errors.Is(err, ErrNotFound) {
			return Enrolment{}, false, err
		}
		c = cachedEnrolment{e: e, found: found, until: now.Add(s.cacheFor)}
		if s.cacheFor > 0 {
			s.remember(id, c, now, gen)
		}
	}
	if !c.found || !c.e.Live() || c.e.DeviceID != deviceID || (c.e.Mode != Counter && c.e.Mode != Kiosk) {
		return Enrolment{}, false, nil
	}
	return c.e, true, nil
}

// List returns the enrolments, live ones first, newest first within each; at most limit
// (0: 500).
func (s *Enrolments) List(ctx context.Context, limit int) ([]Enrolment, error) {
	if limit <= 0 {
		limit = 500
	}
	return queryEnrolments(ctx, s.db, `ORDER BY CASE WHEN revoked_at = 0 THEN 0 ELSE 1 END, enrolled_at DESC, id DESC LIMIT $1`, limit)
}

func (s *Enrolments) remember(id int64, c cachedEnrolment, now time.Time, readAt uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != readAt {
		return // changed while it was read
	}
	if len(s.cache) >= maxCached {
		for k, v := range s.cache {
			if !now.Before(v.until) {
				delete(s.cache, k)
			}
		}
		if len(s.cache) >= maxCached {
			clear(s.cache)
		}
	}
	s.cache[id] = c
}

func (s *Enrolments) forget(id int64) {
	s.mu.Lock()
	delete(s.cache, id)
	s.gen++
	s.mu.Unlock()
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func queryEnrolments(ctx context.Context, q querier, where string, args ...any) ([]Enrolment, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, device_id, name, mode, language, reader_id, cinema_id, enrolled_by, enrolled_at, revoked_at, revoked_by,
		reader_moved_id, reader_moved_to, reader_moved_at, reader_moved_by FROM device_enrolments `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("device: read enrolments: %w", err)
	}
	defer rows.Close()
	var out []Enrolment
	for rows.Next() {
		var e Enrolment
		var mode string
		var enrolledAt, revokedAt, movedAt int64
		if err := rows.Scan(&e.ID, &e.DeviceID, &e.Name, &mode, &e.Language, &e.ReaderID, &e.CinemaID, &e.EnrolledBy, &enrolledAt, &revokedAt, &e.RevokedBy,
			&e.ReaderMove.ReaderID, &e.ReaderMove.To, &movedAt, &e.ReaderMove.By); err != nil {
			return nil, fmt.Errorf("device: read enrolments: %w", err)
		}
		e.Mode, e.EnrolledAt = Mode(mode), time.UnixMilli(enrolledAt)
		if revokedAt > 0 {
			e.RevokedAt = time.UnixMilli(revokedAt)
		}
		if movedAt > 0 {
			e.ReaderMove.At = time.UnixMilli(movedAt)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("device: read enrolments: %w", err)
	}
	return out, nil
}
