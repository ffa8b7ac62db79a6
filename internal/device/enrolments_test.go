package device_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/sessions"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/keys"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

func TestEnrolments(t *testing.T) {
	for name, db := range testenv.MigratedDatabases(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clock := testclock.New(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
			st := device.NewEnrolments(db.SQL, device.EnrolmentsOptions{Now: clock.Now})

			for _, tc := range []struct {
				name, device, enrolName, by string
				mode                        device.Mode
				language                    string
			}{
				{"no name", "dev-a", "   ", "sue", device.Counter, ""},
				{"name too long", "dev-a", strings.Repeat("x", device.MaxNameLength+1), "sue", device.Counter, ""},
				{"control character", "dev-a", "Counter\x002", "sue", device.Counter, ""},
				{"customer is not enrolled", "dev-a", "Counter 2", "sue", device.Customer, ""},
				{"unknown mode", "dev-a", "Counter 2", "sue", device.Mode("spaceship"), ""},
				{"no device", "", "Counter 2", "sue", device.Counter, ""},
				{"no supervisor", "dev-a", "Counter 2", " ", device.Counter, ""},
				{"language with a space", "dev-a", "Counter 2", "sue", device.Counter, "de DE"},
				{"language with markup", "dev-a", "Counter 2", "sue", device.Counter, "<de>"},
				{"language too long", "dev-a", "Counter 2", "sue", device.Counter, "de-" + strings.Repeat("x", device.MaxLanguageLength)},
			} {
				if _, err := st.Enrol(ctx, device.Spec{DeviceID: tc.device, Name: tc.enrolName, Mode: tc.mode, Language: tc.language, By: tc.by}); !errors.Is(err, device.ErrInvalidEnrolment) {
					t.Errorf("%s: Enrol = %v, want ErrInvalidEnrolment", tc.name, err)
				}
			}
			if list, err := st.List(ctx, 0); err != nil || len(list) != 0 {
				t.Fatalf("refused enrolments were stored: %v %v", list, err)
			}

			enrolled, err := st.Enrol(ctx, device.Spec{DeviceID: "dev-a", Name: "  Counter \t 2 ", Mode: device.Counter, Language: "", By: "sue"})
			counter := enrolled.Enrolment
			if err != nil || len(enrolled.Replaced) != 0 {
				t.Fatalf("Enrol: %v, replaced %v", err, enrolled.Replaced)
			}
			if counter.ID <= 0 || counter.Name != "Counter 2" || counter.Mode != device.Counter || counter.EnrolledBy != "sue" ||
				!counter.EnrolledAt.Equal(clock.Now()) || !counter.Live() {
				t.Fatalf("enrolment %+v", counter)
			}
			for _, tc := range []struct {
				name   string
				id     int64
				device string
				live   bool
			}{
				{"its device", counter.ID, "dev-a", true},
				{"another device with its id", counter.ID, "dev-b", false},
				{"unknown id", counter.ID + 100, "dev-a", false},
				{"no id", 0, "dev-a", false},
			} {
				e, ok, err := st.Live(ctx, tc.id, tc.device)
				if err != nil || ok != tc.live || (ok && e.Mode != device.Counter) {
					t.Errorf("%s: Live = %+v %v %v, want live %v", tc.name, e, ok, err, tc.live)
				}
			}

			// Enrolling the same device again replaces the enrolment.
			clock.Advance(time.Minute)
			enrolled, err = st.Enrol(ctx, device.Spec{DeviceID: "dev-a", Name: "Lobby left", Mode: device.Kiosk, Language: " de ", By: "tom",
				ReaderID: " tmr_1 ", CinemaID: "0001"})
			kiosk, replaced := enrolled.Enrolment, enrolled.Replaced
			if err != nil || len(replaced) != 1 || replaced[0].ID != counter.ID || replaced[0].RevokedBy != "tom" {
				t.Fatalf("re-enrol: %+v %v %v", kiosk, replaced, err)
			}
			if _, ok, _ := st.Live(ctx, counter.ID, "dev-a"); ok {
				t.Fatal("the replaced enrolment is still live")
			}
			if e, ok, _ := st.Live(ctx, kiosk.ID, "dev-a"); !ok || e.Mode != device.Kiosk || e.Name != "Lobby left" || e.Language != "de" || e.ReaderID != "tmr_1" || e.CinemaID != "0001" {
				t.Fatalf("new enrolment: %+v %v", e, ok)
			}
			enrolled, err = st.Enrol(ctx, device.Spec{DeviceID: "dev-b", Name: "Counter 1", Mode: device.Counter, Language: "", By: "sue"})
			other := enrolled.Enrolment
			if err != nil {
				t.Fatal(err)
			}

			// The default language of a live enrolment can be changed, at once through this store.
			if e, err := st.SetLanguage(ctx, kiosk.ID, "en"); err != nil || e.Language != "en" || e.Name != "Lobby left" || !e.Live() {
				t.Fatalf("SetLanguage = %+v %v", e, err)
			}
			if e, _, _ := st.Live(ctx, kiosk.ID, "dev-a"); e.Language != "en" {
				t.Fatalf("after SetLanguage the live enrolment says %q", e.Language)
			}
			if _, err := st.SetLanguage(ctx, kiosk.ID, "en;drop"); !errors.Is(err, device.ErrInvalidEnrolment) {
				t.Fatalf("SetLanguage of a bad code = %v", err)
			}
			if e, err := st.SetLanguage(ctx, kiosk.ID, ""); err != nil || e.Language != "" {
				t.Fatalf("SetLanguage to the site's = %+v %v", e, err)
			}
			if _, err := st.SetLanguage(ctx, counter.ID, "de"); !errors.Is(err, device.ErrAlreadyRevoked) {
				t.Fatalf("SetLanguage of a replaced enrolment = %v", err)
			}
			if _, err := st.SetLanguage(ctx, other.ID+100, "de"); !errors.Is(err, device.ErrNotFound) {
				t.Fatalf("SetLanguage of an unknown enrolment = %v", err)
			}

			// Revoke: once; a second time says so; an unknown one is not found.
			clock.Advance(time.Minute)
			got, err := st.Revoke(ctx, kiosk.ID, "sue")
			if err != nil || got.Live() || got.RevokedBy != "sue" || !got.RevokedAt.Equal(clock.Now()) {
				t.Fatalf("Revoke = %+v %v", got, err)
			}
			if _, ok, _ := st.Live(ctx, kiosk.ID, "dev-a"); ok {
				t.Fatal("revoked enrolment is live")
			}
			if got, err := st.Revoke(ctx, kiosk.ID, "tom"); !errors.Is(err, device.ErrAlreadyRevoked) || got.RevokedBy != "sue" {
				t.Fatalf("second Revoke = %+v %v", got, err)
			}
			if _, err := st.Revoke(ctx, other.ID+100, "sue"); !errors.Is(err, device.ErrNotFound) {
				t.Fatalf("Revoke unknown = %v", err)
			}

			// List: live first, then newest first.
			list, err := st.List(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, e := range list {
				ids = append(ids, e.ID)
			}
			if want := []int64{other.ID, kiosk.ID, counter.ID}; len(ids) != 3 || ids[0] != want[0] || ids[1] != want[1] || ids[2] != want[2] {
				t.Fatalf("List order %v, want %v", ids, want)
			}
		})
	}
}

// TestEnrolmentCache: a revocation through the same store counts at once; one through another
// store (another replica) within the cache time, and not later.
func TestEnrolmentCache(t *testing.T) {
	for name, db := range testenv.MigratedDatabases(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clock := testclock.New(time.Now())
			a := device.NewEnrolments(db.SQL, device.EnrolmentsOptions{Now: clock.Now})
			b := device.NewEnrolments(db.SQL, device.EnrolmentsOptions{Now: clock.Now})
			e, err := b.Enrol(ctx, device.Spec{DeviceID: "dev-a", Name: "Counter 2", Mode: device.Counter, Language: "", By: "sue"})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, err := a.Live(ctx, e.ID, "dev-a"); !ok || err != nil {
				t.Fatalf("live before revocation: %v %v", ok, err)
			}
			if _, err := b.Revoke(ctx, e.ID, "sue"); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := b.Live(ctx, e.ID, "dev-a"); ok {
				t.Fatal("the revoking store still says live")
			}
			clock.Advance(device.DefaultCacheFor - time.Millisecond)
			if _, ok, _ := a.Live(ctx, e.ID, "dev-a"); !ok {
				t.Fatal("the other replica read the row again before its cache time (the cache does nothing)")
			}
			clock.Advance(time.Millisecond)
			if _, ok, _ := a.Live(ctx, e.ID, "dev-a"); ok {
				t.Fatalf("still live %s after the revocation on another replica", device.DefaultCacheFor)
			}

			// No cache: every call reads the row.
			nc := device.NewEnrolments(db.SQL, device.EnrolmentsOptions{Now: clock.Now, CacheFor: -1})
			e2, err := nc.Enrol(ctx, device.Spec{DeviceID: "dev-b", Name: "Kiosk 1", Mode: device.Kiosk, Language: "", By: "sue"})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := nc.Live(ctx, e2.ID, "dev-b"); !ok {
				t.Fatal("not live")
			}
			if _, err := b.Revoke(ctx, e2.ID, "sue"); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := nc.Live(ctx, e2.ID, "dev-b"); ok {
				t.Fatal("an uncached store kept a revoked enrolment")
			}
		})
	}
}

// TestCookieCarriesEnrolmentNotMode: the cookie round-trips the device id and enrolment id;
// Read never takes a mode from it, not even from a validly signed cookie of the older format
// that held one.
func TestCookieCarriesEnrolmentNotMode(t *testing.T) {
	k, err := keys.Generate()
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := keys.Parse(k)
	if err != nil {
		t.Fatal(err)
	}
	st := device.NewStore(pairs, false)

	w := httptest.NewRecorder()
	if err := st.Write(w, httptest.NewRequest("GET", "/", nil), device.Info{ID: "dev-a", Enrolment: 7, Mode: device.Counter, Name: "Counter 2"}); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/", nil)
	for _, c := range w.Result().Cookies() {
		r.AddCookie(c)
	}
	info, ok := st.Read(r)
	if !ok || info != (device.Info{ID: "dev-a", Enrolment: 7, Mode: device.Customer}) {
		t.Fatalf("Read = %+v %v", info, ok)
	}

	// An old-format cookie, signed with the right key, that says "counter".
	cs := sessions.NewCookieStore(pairs[0].Hash, pairs[0].Block)
	cs.Options = &sessions.Options{Path: "/", MaxAge: device.MaxAge}
	w = httptest.NewRecorder()
	sess, _ := cs.New(httptest.NewRequest("GET", "/", nil), "device")
	sess.Values["id"], sess.Values["mode"] = "dev-old", "counter"
	if err := sess.Save(httptest.NewRequest("GET", "/", nil), w); err != nil {
		t.Fatal(err)
	}
	r = httptest.NewRequest("GET", "/", nil)
	for _, c := range w.Result().Cookies() {
		r.AddCookie(c)
	}
	info, ok = st.Read(r)
	if !ok || info != (device.Info{ID: "dev-old", Mode: device.Customer}) {
		t.Fatalf("old cookie with a mode: Read = %+v %v, want a customer device keeping its id", info, ok)
	}

	// No cookie: a new customer device.
	info, ok = st.Read(httptest.NewRequest("GET", "/", nil))
	if ok || info.ID == "" || info.Mode != device.Customer || info.Enrolment != 0 {
		t.Fatalf("no cookie: %+v %v", info, ok)
	}
}
