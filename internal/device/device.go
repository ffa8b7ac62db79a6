// Package device keeps the long-lived, signed and encrypted device cookie and the enrolments of
// counter and kiosk terminals. The cookie holds a stable device id and the id of the enrolment a
// supervisor made for this browser; it is never trusted for the mode itself: the mode is read
// from the enrolment row (Enrolments), so revoking the row makes the browser a customer device
// again, and a cookie naming no live row is a customer. The cookie outlives the server-side
// visit session, so a kiosk that resets its visit stays a kiosk.
package device

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"sync"
	"time"

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

// Info is this browser as a device: what the cookie holds (ID, Enrolment) and what the live
// enrolment says (Mode, Name, Language). Read leaves Mode at Customer; the caller fills Mode,
// Name and Language from the enrolment row. A mode's name for people is the caller's (it is
// written in the person's language).
type Info struct {
	ID        string // stable device reference
	Enrolment int64  // the enrolment the cookie names; 0: none
	Mode      Mode
	Name      string // the live enrolment's name ("Counter 2"); "" for a customer device
	Language  string // the enrolment's default language code ("de"); "" for the site's
	ReaderID  string // the enrolment's card reader; "" for none
	CinemaID  string // the cinema the enrolment stands in; "" for any
	// ReaderMove: the enrolment's card reader was taken for another terminal (ReaderID is ""
	// then); zero otherwise.
	ReaderMove ReaderMove
}

// Store reads and writes the device cookie.
type Store struct {
	cookies *sessions.CookieStore
	name    string
	now     func() time.Time

	// decoded remembers what cookie values that passed the signature check held, so a
	// returning browser's cookie is not verified, decrypted and gob-decoded on every request.
	// A value is only ever added after a full check, and the key is the exact cookie value, so
	// a hit is as trustworthy as decoding again; an entry is checked afresh after decodedFor.
	mu      sync.Mutex
	decoded map[string]decodedCookie
}

type decodedCookie struct {
	info  Info
	until time.Time
}

// decodedFor is how long a checked cookie value is trusted without checking it again; well
// inside the cookie's own MaxAge, so the expiry check still happens.
const decodedFor = 10 * time.Minute

// maxDecoded bounds the remembered cookies; past it, expired entries are dropped, and if that
// is not enough, all of them.
const maxDecoded = 8192

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
	return &Store{cookies: cs, name: name, now: time.Now, decoded: map[string]decodedCookie{}}
}

// Read returns the device info with Mode Customer: the enrolment, not the cookie, says what the
// device is. A missing, tampered or undecodable cookie yields a new customer device (fresh id)
// and ok=false; the caller decides whether to write it. A cookie of an older version that held
// a mode keeps its id and loses the mode.
func (s *Store) Read(r *http.Request) (info Info, ok bool) {
	ck, err := r.Cookie(s.name)
	if err != nil {
		return Info{ID: newID(), Mode: Customer}, false
	}
	now := s.now()
	s.mu.Lock()
	d, hit := s.decoded[ck.Value]
	s.mu.Unlock()
	if hit && now.Before(d.until) {
		return d.info, true
	}
	sess, err := s.cookies.Get(r, s.name)
	if err == nil && !sess.IsNew {
		id, _ := sess.Values["id"].(string)
		enrolment, _ := sess.Values["enrolment"].(int64)
		if id != "" {
			info := Info{ID: id, Enrolment: max(enrolment, 0), Mode: Customer}
			s.remember(ck.Value, info, now)
			return info, true
		}
	}
	return Info{ID: newID(), Mode: Customer}, false
}

func (s *Store) remember(value string, info Info, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.decoded) >= maxDecoded {
		for k, d := range s.decoded {
			if !now.Before(d.until) {
				delete(s.decoded, k)
			}
		}
		if len(s.decoded) >= maxDecoded {
			clear(s.decoded)
		}
	}
	s.decoded[value] = decodedCookie{info: info, until: now.Add(decodedFor)}
}

// Write stores the device id and enrolment id in the cookie (signed with the newest key). The
// mode and name are not stored: they are read from the enrolment.
func (s *Store) Write(w http.ResponseWriter, r *http.Request, info Info) error {
	sess, _ := s.cookies.New(r, s.name) // New returns a usable session even when decoding fails
	sess.Values["id"] = info.ID
	sess.Values["enrolment"] = info.Enrolment
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
