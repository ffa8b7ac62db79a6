package web

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/sessioncodec"
)

// Session keys. The visit's server-side state lives under these names only.
const (
	SessTouched = "touched" // unix seconds of the last write; refreshes the idle deadline
)

// NewSessionManager is the visit's server-side session: its cookie, idle timeout and lifetime.
func NewSessionManager(store scs.Store, cfg Config) *scs.SessionManager {
	sm := scs.New()
	sm.Store = store
	sm.Codec = sessioncodec.New() // gob, with recently decoded sessions kept
	sm.IdleTimeout = cfg.SessionIdle
	if sm.IdleTimeout == 0 {
		sm.IdleTimeout = 30 * time.Minute
	}
	sm.Lifetime = cfg.SessionLifetime
	if sm.Lifetime == 0 {
		sm.Lifetime = 12 * time.Hour
	}
	sm.Cookie.Name = "session"
	sm.Cookie.Path = "/"
	sm.Cookie.HttpOnly = true
	// Lax, not Strict: the return from the payment provider is a cross-site top-level GET and
	// must arrive with the visit's cookie.
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Persist = false // the visit ends with the browser session; the device cookie outlives it
	if cfg.Secure() {
		sm.Cookie.Name = "__Host-session"
		sm.Cookie.Secure = true
	}
	return sm
}

// loadSession loads the visit's server-side session and commits it just before the response
// headers go out, only when something changed: the values, the token (renewal) or its
// destruction. scs marks every loaded session "modified" when an idle timeout is set, so we
// keep a copy of the values as loaded and compare; a GET that changes nothing writes nothing.
// An active visit refreshes its idle deadline at most every IdleTimeout/4 (a write, but not on
// every GET: see TestBookingPageGETsDoNotWriteSessionStore).
func (k *Kernel) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if k.isInfraPath(c.Request().URL.Path) {
			return next(c)
		}
		sm := k.Sessions
		token := ""
		if ck, err := c.Cookie(sm.Cookie.Name); err == nil {
			token = ck.Value
		}
		ctx, err := sm.Load(c.Request().Context(), token)
		if err != nil {
			return fmt.Errorf("load session: %w", err)
		}
		c.SetRequest(c.Request().WithContext(ctx))
		c.Set(CtxSessionLoaded, true)
		loaded := sessionState{token: sm.Token(ctx)}
		if loaded.token != "" {
			loaded.values = k.snapshot(ctx)
			last := time.Unix(sm.GetInt64(ctx, SessTouched), 0)
			if time.Since(last) > sm.IdleTimeout/4 {
				sm.Put(ctx, SessTouched, time.Now().Unix())
			}
		}
		var commitErr error
		done := false
		commit := func() {
			if !done {
				done = true
				commitErr = k.commitSession(c, loaded)
			}
		}
		c.Response().Before(commit)
		err = next(c)
		if !c.Response().Committed && err == nil {
			commit()
		}
		if err == nil && commitErr != nil {
			return commitErr
		}
		if commitErr != nil {
			LoggerFrom(c.Request().Context(), k.Logger).Error("commit session", "err", commitErr)
		}
		return err
	}
}

// sessionState is what the session looked like when the request started.
type sessionState struct {
	token  string
	values map[string]any // see snapshot
}

// gobbed is a session value of a type without == (a slice, a struct of them), held as its
// gob encoding so a change made to it in place is still seen. Being a string it compares
// with == like the plain values, so changedSince needs no case for it.
type gobbed string

// snapshot copies the session's values. The values the site stores are strings and numbers,
// which are copied as they are and compared with ==: no encoding on the hot path. Anything
// else is kept encoded, as scs would store it.
func (k *Kernel) snapshot(ctx context.Context) map[string]any {
	keys := k.Sessions.Keys(ctx)
	if len(keys) == 0 {
		return nil
	}
	out := make(map[string]any, len(keys))
	for _, key := range keys {
		out[key] = k.snapshotValue(k.Sessions.Get(ctx, key))
	}
	return out
}

func (k *Kernel) snapshotValue(v any) any {
	switch v.(type) {
	case nil, string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return v
	}
	b, err := k.Sessions.Codec.Encode(time.Time{}, map[string]any{"v": v})
	if err != nil {
		// Unencodable values would fail the commit anyway; a fresh value never compares equal,
		// so the commit happens and the error surfaces.
		return new(int)
	}
	return gobbed(b)
}

// changedSince reports whether the session's values differ from the snapshot taken at load.
func (k *Kernel) changedSince(ctx context.Context, loaded map[string]any) bool {
	keys := k.Sessions.Keys(ctx)
	if len(keys) != len(loaded) {
		return true
	}
	for _, key := range keys {
		was, ok := loaded[key]
		if !ok {
			return true
		}
		if k.snapshotValue(k.Sessions.Get(ctx, key)) != was {
			return true
		}
	}
	return false
}

func (k *Kernel) commitSession(c echo.Context, loaded sessionState) error {
	sm := k.Sessions
	ctx := c.Request().Context()
	switch sm.Status(ctx) {
	case scs.Destroyed:
		sm.WriteSessionCookie(ctx, c.Response(), "", time.Time{})
		return nil
	case scs.Unmodified:
		return nil
	}
	if len(sm.Keys(ctx)) == 0 && loaded.token == "" {
		return nil // a new, empty visit: nothing worth storing yet
	}
	if sm.Token(ctx) == loaded.token && !k.changedSince(ctx, loaded.values) {
		return nil
	}
	if sm.GetInt64(ctx, SessTouched) == 0 {
		sm.Put(ctx, SessTouched, time.Now().Unix())
	}
	token, expiry, err := sm.Commit(ctx)
	if err != nil {
		return fmt.Errorf("commit session: %w", err)
	}
	sm.WriteSessionCookie(ctx, c.Response(), token, expiry)
	return nil
}

// RenewSession gives the visit a new session token, keeping its data, and a new CSRF secret
// (csrf.go). Call it on every change of privilege: a booking bound to the visit, a staff
// sign-in or sign-out; and answer with a redirect, so the next page carries the new token.
func (k *Kernel) RenewSession(c echo.Context) error {
	if err := k.Sessions.RenewToken(c.Request().Context()); err != nil {
		return fmt.Errorf("renew session token: %w", err)
	}
	k.NewCSRFSecret(c)
	return nil
}

// SessFlash holds a one-shot message for the next page.
const SessFlash = "flash"

// Flash keeps a one-line message for the next page the visit sees.
func (k *Kernel) Flash(c echo.Context, msg string) {
	k.Sessions.Put(c.Request().Context(), SessFlash, msg)
}

func (k *Kernel) PopFlash(c echo.Context) string {
	return k.Sessions.PopString(c.Request().Context(), SessFlash)
}

// SessFlashSuccess holds a one-shot confirmation for the next page ("Ready for the next
// customer."): shown as a success notice, never as an error.
const SessFlashSuccess = "flash_success"

// FlashSuccess keeps a one-line confirmation for the next page the visit sees.
func (k *Kernel) FlashSuccess(c echo.Context, msg string) {
	k.Sessions.Put(c.Request().Context(), SessFlashSuccess, msg)
}

// PopFlashSuccess takes the confirmation kept by FlashSuccess ("" when none).
func (k *Kernel) PopFlashSuccess(c echo.Context) string {
	return k.Sessions.PopString(c.Request().Context(), SessFlashSuccess)
}
