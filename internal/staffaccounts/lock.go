package staffaccounts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The lock-outs. Failures count per key, in the database (every replica agrees):
//
//   - a sign-in: the typed username and the client it comes from, so a client can only ever
//     lock itself out; guesses from many clients are held back by the callers' per-client
//     limits and the passwords' length;
//   - an approval: the typed username's PIN, from every client together, since the PIN is the
//     secret being guessed. It never touches the supervisor's sign-in.
//
// MaxFailures failures of a key within LockFor lock it for LockFor. After that each further
// failure locks it again at once, each time twice as long (strikes), up to MaxLockFor, until a
// success, an Unlock, or StrikeMemory after the last lock ended. A six-digit PIN then gets a
// handful of guesses the first day and about one a day after.

// lockKey is what failed attempts count against.
type lockKey struct {
	kind     string // kindSignIn or kindPIN
	username string
	client   string // sign-ins only
}

const (
	kindSignIn = "signin"
	kindPIN    = "pin"
	// maxClientLength bounds a client's name in a key (an IPv6 /64 is at most 43 bytes).
	maxClientLength = 64
)

func signInKey(username, client string) lockKey {
	if len(client) > maxClientLength {
		client = client[:maxClientLength]
	}
	return lockKey{kind: kindSignIn, username: username, client: client}
}

func pinKey(username string) lockKey { return lockKey{kind: kindPIN, username: username} }

// String is the key's row: usernames have no spaces, nor have the callers' client names.
func (k lockKey) String() string {
	if k.kind == kindPIN {
		return k.kind + " " + k.username
	}
	return k.kind + " " + k.username + " " + k.client
}

// attempt is a key's state after an attempt was counted.
type attempt struct {
	failures int // within LockFor, this one included
	strikes  int // locks so far
}

// allowed is how many failures the key may have before it locks: MaxFailures the first time,
// one once it has been locked.
func (a attempt) allowed() int {
	if a.strikes > 0 {
		return 1
	}
	return MaxFailures
}

// lockDuration is the length of a key's next lock after strikes earlier ones.
func lockDuration(strikes int) time.Duration {
	d := LockFor
	for range strikes {
		if d *= 2; d >= MaxLockFor {
			return MaxLockFor
		}
	}
	return d
}

// countAttempt counts an attempt for key and returns its state, or a *LockedError when the
// key is locked. Failures older than LockFor, and strikes StrikeMemory after the last lock
// ended, are forgotten.
func (s *Store) countAttempt(ctx context.Context, key lockKey) (attempt, error) {
	now := s.now()
	var a attempt
	var lockedUntil int64
	err := s.db.QueryRowContext(ctx, `INSERT INTO staff_locks (lock_key, username, kind, failures, strikes, locked_until, updated_at)
		VALUES ($1, $2, $3, 1, 0, 0, $4)
		ON CONFLICT (lock_key) DO UPDATE SET
			failures = CASE WHEN staff_locks.locked_until > $4 THEN staff_locks.failures
				WHEN staff_locks.updated_at < $5 THEN 1
				ELSE staff_locks.failures + 1 END,
			strikes = CASE WHEN staff_locks.locked_until < $6 THEN 0 ELSE staff_locks.strikes END,
			updated_at = CASE WHEN staff_locks.locked_until > $4 THEN staff_locks.updated_at ELSE $4 END
		RETURNING failures, strikes, locked_until`,
		key.String(), key.username, key.kind, now.UnixMilli(), now.Add(-LockFor).UnixMilli(), now.Add(-StrikeMemory).UnixMilli(),
	).Scan(&a.failures, &a.strikes, &lockedUntil)
	if err != nil {
		return a, fmt.Errorf("count %s attempt: %w", key.kind, err)
	}
	if lockedUntil > now.UnixMilli() {
		return a, &LockedError{Until: time.UnixMilli(lockedUntil)}
	}
	if a.failures > a.allowed() {
		// Parallel attempts went past the limit before any of them failed: lock now.
		return a, s.lock(ctx, key, a, now)
	}
	return a, nil
}

// failed returns the error of a failed attempt: ErrBadCredentials, or a *LockedError when this
// failure used up the key's allowance.
func (s *Store) failed(ctx context.Context, key lockKey, a attempt) error {
	if a.failures < a.allowed() {
		return ErrBadCredentials
	}
	return s.lock(ctx, key, a, s.now())
}

// lock locks key for its next lock's length, unless a parallel attempt locked it already
// (then that lock stands: one burst is one strike).
func (s *Store) lock(ctx context.Context, key lockKey, a attempt, now time.Time) error {
	until := now.Add(lockDuration(a.strikes))
	res, err := s.db.ExecContext(ctx, `UPDATE staff_locks SET failures = 0, strikes = strikes + 1, locked_until = $2, updated_at = $3
		WHERE lock_key = $1 AND locked_until <= $3`, key.String(), until.UnixMilli(), now.UnixMilli())
	if err != nil {
		return fmt.Errorf("lock %s: %w", key.kind, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		var current int64
		err := s.db.QueryRowContext(ctx, `SELECT locked_until FROM staff_locks WHERE lock_key = $1`, key.String()).Scan(&current)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("lock %s: %w", key.kind, err)
		}
		if current > now.UnixMilli() {
			until = time.UnixMilli(current)
		}
	}
	// Forget keys that have been quiet for a long time (names that never came back).
	_, _ = s.db.ExecContext(ctx, `DELETE FROM staff_locks WHERE updated_at < $1 AND locked_until < $1`, now.Add(-StrikeMemory).UnixMilli())
	return &LockedError{Until: until}
}

// clear forgets key's failures and strikes after a success.
func (s *Store) clear(ctx context.Context, key lockKey) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM staff_locks WHERE lock_key = $1`, key.String()); err != nil {
		return fmt.Errorf("clear failed %s attempts: %w", key.kind, err)
	}
	return nil
}
