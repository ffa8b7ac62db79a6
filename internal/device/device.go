// Package device keeps the long-lived, signed and encrypted device cookie: which kind of
// terminal this browser is (customer, counter, kiosk) and a stable device id. It outlives the
// server-side visit session, so a kiosk that resets its visit stays a kiosk.
package device

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"

	"github.com/gorilla/sessions"

	"github.com/cinemabff/cinemabff/internal/keys"
)

// Mode is the kind of terminal.
type Mode string

const (
	Customer Mode = "customer"
	Counter  Mode = "counter"
	Kiosk    Mode = "kiosk"
)

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool { return m == Customer || m == Counter || m == Kiosk }

// Label is the mode's name for people.
func (m Mode) Label() string {
	switch m {
	case Counter:
		return "Box-office counter"
	case Kiosk:
		return "Lobby kiosk"
	default:
		return "Customer"
	}
}

// Info is what the cookie holds.
type Info struct {
	ID   string
	Mode Mode
}

// Store reads and writes the device cookie.
type Store struct {
	cookies *sessions.CookieStore
	name    string
}

// MaxAge of the device cookie: a year.
const MaxAge = 365 * 24 * 60 * 60

// NewStore builds the store. pairs are newest first: the first signs, all are accepted.
// secure sets the Secure flag and the __Host- prefix (for https sites).
func NewStore(pairs []keys.Pair, secure bool) *Store {
	var kp [][]byte
	for _, p := range pairs {
		kp = append(kp, p.Hash, p.Block)
	}
	cs := sessions.NewCookieStore(kp...)
	cs.Options = &sessions.Options{Path: "/", MaxAge: MaxAge, HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode}
	name := "device"
	if secure {
		name = "__Host-device"
	}
	return &Store{cookies: cs, name: name}
}

// Read returns the device info. A missing, tampered or undecodable cookie yields a new customer
// device (fresh id) and ok=false; the caller decides whether to write it.
func (s *Store) Read(r *http.Request) (info Info, ok bool) {
	sess, err := s.cookies.Get(r, s.name)
	if err == nil && !sess.IsNew {
		id, _ := sess.Values["id"].(string)
		mode, _ := sess.Values["mode"].(string)
		if id != "" && Mode(mode).Valid() {
			return Info{ID: id, Mode: Mode(mode)}, true
		}
	}
	return Info{ID: newID(), Mode: Customer}, false
}

// Write stores info in the cookie (signed with the newest key).
func (s *Store) Write(w http.ResponseWriter, r *http.Request, info Info) error {
	sess, _ := s.cookies.New(r, s.name) // New returns a usable session even when decoding fails
	sess.Values["id"] = info.ID
	sess.Values["mode"] = string(info.Mode)
	if err := sess.Save(r, w); err != nil {
		return fmt.Errorf("save device cookie: %w", err)
	}
	return nil
}

func newID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
