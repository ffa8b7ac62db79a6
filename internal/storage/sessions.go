package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/alexedwards/scs/goredisstore"
	"github.com/alexedwards/scs/pgxstore"
	"github.com/alexedwards/scs/sqlite3store"
	"github.com/alexedwards/scs/v2"
	"github.com/redis/go-redis/v9"
)

// SessionStoreKind names where server-side sessions are kept.
type SessionStoreKind string

const (
	SessionsSQLite   SessionStoreKind = "sqlite"
	SessionsPostgres SessionStoreKind = "postgres"
	SessionsRedis    SessionStoreKind = "redis"
)

// ErrStoreMismatch is returned when the session store needs a database the BFF is not using.
var ErrStoreMismatch = errors.New("session store does not match the database")

// SessionStore is an scs store plus the function that releases what it holds. Store is the
// store itself (not wrapped), so scs still sees the context-aware methods a store may have.
type SessionStore struct {
	Store scs.Store
	close func() error
}

// Close stops cleanup goroutines and closes connections owned by the store.
func (s *SessionStore) Close() error {
	if s.close == nil {
		return nil
	}
	return s.close()
}

// NewSessionStore builds the session store of the given kind. SQLite and PostgreSQL reuse the
// BFF's database (the sessions table comes from the migrations); Redis opens its own client.
func NewSessionStore(ctx context.Context, kind SessionStoreKind, db *DB, redisURL string) (*SessionStore, error) {
	switch kind {
	case SessionsSQLite:
		if db.Dialect != SQLite {
			return nil, fmt.Errorf("%w: sqlite sessions need a sqlite database, have %s", ErrStoreMismatch, db.Dialect)
		}
		st, err := newSQLiteSessions(ctx, db)
		if err != nil {
			return nil, err
		}
		stop := sweepExpired(db, "DELETE FROM sessions WHERE expiry < julianday('now')")
		return &SessionStore{Store: st, close: func() error { stop(); return st.find.Close() }}, nil
	case SessionsPostgres:
		if db.Dialect != Postgres {
			return nil, fmt.Errorf("%w: postgres sessions need a postgres database, have %s", ErrStoreMismatch, db.Dialect)
		}
		// The store's own cleanup goroutine races with StopCleanup (seen with -race); we sweep
		// expired sessions ourselves.
		st := pgxstore.NewWithCleanupInterval(db.Pool, 0)
		stop := sweepExpired(db, "DELETE FROM sessions WHERE expiry < current_timestamp")
		return &SessionStore{Store: st, close: func() error { stop(); return nil }}, nil
	case SessionsRedis:
		opts, err := redis.ParseURL(redisURL)
		if err != nil {
			return nil, fmt.Errorf("parse redis URL: %w", err)
		}
		client := redis.NewClient(opts)
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if err := client.Ping(pctx).Err(); err != nil {
			client.Close()
			return nil, fmt.Errorf("ping redis: %w", err)
		}
		return &SessionStore{Store: goredisstore.NewWithPrefix(client, "cinemabff:session:"), close: client.Close}, nil
	default:
		return nil, fmt.Errorf("unknown session store %q (want sqlite, postgres or redis)", kind)
	}
}

// sweepInterval is how often expired sessions are deleted.
const sweepInterval = 5 * time.Minute

// sweepExpired deletes expired sessions every sweepInterval until the returned stop is called.
func sweepExpired(db *DB, query string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(sweepInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				qctx, qcancel := context.WithTimeout(ctx, 30*time.Second)
				_, _ = db.SQL.ExecContext(qctx, query) // best effort: expired rows are never read anyway
				qcancel()
			}
		}
	}()
	return func() { cancel(); <-done }
}

// sqliteSessions is scs's sqlite3store with its Find, run on every request, as a statement
// prepared once: the store's own Find has SQLite parse the same query each time. The query is
// the store's own; writes and deletes are the store's.
type sqliteSessions struct {
	*sqlite3store.SQLite3Store
	find *sql.Stmt
}

func newSQLiteSessions(ctx context.Context, db *DB) (*sqliteSessions, error) {
	find, err := db.SQL.PrepareContext(ctx, "SELECT data FROM sessions WHERE token = $1 AND julianday('now') < expiry")
	if err != nil {
		return nil, fmt.Errorf("prepare session find: %w", err)
	}
	return &sqliteSessions{SQLite3Store: sqlite3store.NewWithCleanupInterval(db.SQL, 0), find: find}, nil
}

// Find returns the data of an unexpired session; exists is false for an unknown or expired one.
func (s *sqliteSessions) Find(token string) (b []byte, exists bool, err error) {
	err = s.find.QueryRow(token).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, err
	}
	return b, true, nil
}
