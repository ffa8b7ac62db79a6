package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/keys"
)

// CSRF. A browser that sends Fetch Metadata says where an unsafe request comes from: our own
// origin (or the person: "none") passes, anything else is refused before any token is looked
// at. Without Fetch Metadata (an older browser, or any browser on plain http, where it is not
// sent) the form's _csrf field or htmx's X-CSRF-Token header must carry a token of this visit.
//
// The token is bound to the visit on the server, not to a cookie the browser could be given
// by someone else (a sibling subdomain or the network can plant a plain "csrf" cookie):
//   - a visit whose session has been renewed (a booking or an order bound to it, a staff
//     sign-in, a device enrolled: every privilege change) has a random secret in its server
//     session, made new at each renewal. A token someone learnt before (say in a session they
//     planted) is no good after it; the renewing request itself is checked before it, and
//     every renewal answers with a redirect, so the next page carries the new token;
//   - before that the visit has nothing worth a session write, and looking at pages must not
//     write one (TestBookingPageGETsDoNotWriteSessionStore): its secret is derived with the
//     server's key from the signed device cookie the first page gives the browser. Starting
//     the session (a flash, a kiosk's language) does not change it, so the tabs and htmx
//     pages of a visit keep working across that.
//
// A client with neither (no cookies of its own) has no secret, so no token passes. The token
// is the secret itself, the same on every page of the visit until it changes: an htmx
// fragment asked again must be byte for byte the same to be answered 304 (its ETag), so
// tokens are not masked per response.

// SessCSRF is the visit's CSRF secret (hex), set by renewSession.
const SessCSRF = "csrf"

// csrfSecretSize is the length of a secret.
const csrfSecretSize = 32

var (
	errCSRFMissing = errors.New("no csrf token")
	errCSRFInvalid = errors.New("csrf token not of this visit")
)

// CSRFKeys derives the keys of the CSRF secrets of visits without one in their session from
// the cookie keys (newest first: the first makes tokens, all are accepted).
func CSRFKeys(pairs []keys.Pair) [][]byte {
	out := make([][]byte, 0, len(pairs))
	for _, p := range pairs {
		out = append(out, keys.Derive(p, "csrf"))
	}
	return out
}

// csrf protects every unsafe method (see above). Every failure is one clear 403.
func (k *Kernel) csrf() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if k.isInfraPath(r.URL.Path) {
				return next(c)
			}
			c.Set(CSRFKey, func() string { return k.NewCSRFToken(c) })
			switch r.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
				return next(c)
			}
			switch site := r.Header.Get("Sec-Fetch-Site"); site {
			case "same-origin", "none":
				return next(c)
			case "": // no Fetch Metadata: the token decides
			default:
				return k.refuseCSRF(c, errors.New("sec-fetch-site "+site))
			}
			if err := k.checkCSRFToken(c); err != nil {
				return k.refuseCSRF(c, err)
			}
			return next(c)
		}
	}
}

// refuseCSRF is the 403 page; its words are written by ErrorView in the request's language,
// and its way back is the default, to the start.
func (k *Kernel) refuseCSRF(c echo.Context, err error) error {
	LoggerFrom(c.Request().Context(), k.Logger).Warn("csrf refused", "err", err,
		"sec_fetch_site", c.Request().Header.Get("Sec-Fetch-Site"))
	return &Error{Code: EForbidden, HeadingID: Msg("ui.error.csrf.heading"), MessageID: Msg("ui.error.csrf.message"), Err: err}
}

// checkCSRFToken accepts the request when the X-CSRF-Token header or the _csrf form field holds
// a token of this visit's secret.
func (k *Kernel) checkCSRFToken(c echo.Context) error {
	secrets := k.csrfSecrets(c)
	sent := false
	for _, tok := range []string{c.Request().Header.Get(echo.HeaderXCSRFToken), c.FormValue("_csrf")} {
		if tok == "" {
			continue
		}
		sent = true
		if validCSRFToken(tok, secrets) {
			return nil
		}
	}
	if !sent {
		return errCSRFMissing
	}
	return errCSRFInvalid
}

// csrfSecrets are the secrets a token of this request's visit is made from: the one in its
// session, or else the ones derived from its device id (one per key, the newest first).
func (k *Kernel) csrfSecrets(c echo.Context) [][]byte {
	if b, err := hex.DecodeString(k.Sessions.GetString(c.Request().Context(), SessCSRF)); err == nil && len(b) == csrfSecretSize {
		return [][]byte{b}
	}
	id := DeviceOf(c).ID
	if id == "" {
		return nil
	}
	out := make([][]byte, 0, len(k.CSRFKeys))
	for _, key := range k.CSRFKeys {
		m := hmac.New(sha256.New, key)
		m.Write([]byte("csrf device\x00" + id))
		out = append(out, m.Sum(nil))
	}
	return out
}

// NewCSRFToken is the visit's token, for a form or htmx's header.
func (k *Kernel) NewCSRFToken(c echo.Context) string {
	secrets := k.csrfSecrets(c)
	if len(secrets) == 0 {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(secrets[0])
}

// NewCSRFSecret gives the visit a new secret in its session (at renewal: renewSession).
func (k *Kernel) NewCSRFSecret(c echo.Context) {
	b := make([]byte, csrfSecretSize)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	k.Sessions.Put(c.Request().Context(), SessCSRF, hex.EncodeToString(b))
}

// validCSRFToken reports whether tok is the token of one of secrets (in constant time for
// each).
func validCSRFToken(tok string, secrets [][]byte) bool {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) != csrfSecretSize {
		return false
	}
	ok := false
	for _, s := range secrets {
		ok = hmac.Equal(b, s) || ok
	}
	return ok
}
