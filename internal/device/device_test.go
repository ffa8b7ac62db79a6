package device

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/keys"
)

func newTestStore(t testing.TB) *Store {
	t.Helper()
	k, err := keys.Generate()
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := keys.Parse(k)
	if err != nil {
		t.Fatal(err)
	}
	return NewStore(pairs, false)
}

// cookieFor writes info with st and returns the cookie.
func cookieFor(t testing.TB, st *Store, info Info) *http.Cookie {
	t.Helper()
	w := httptest.NewRecorder()
	if err := st.Write(w, httptest.NewRequest("GET", "/", nil), info); err != nil {
		t.Fatal(err)
	}
	return w.Result().Cookies()[0]
}

func requestWith(c *http.Cookie) *http.Request {
	r := httptest.NewRequest("GET", "/", nil)
	r.AddCookie(c)
	return r
}

// TestReadRemembersCheckedCookies: a cookie value that passed the check is not decoded again
// for decodedFor; a different value (tampered) is checked in full; after decodedFor the value
// is checked again.
func TestReadRemembersCheckedCookies(t *testing.T) {
	st := newTestStore(t)
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	st.now = func() time.Time { return now }
	ck := cookieFor(t, st, Info{ID: "dev-a", Enrolment: 3})
	want := Info{ID: "dev-a", Enrolment: 3, Mode: Customer}

	if info, ok := st.Read(requestWith(ck)); !ok || info != want {
		t.Fatalf("first read = %+v %v", info, ok)
	}
	// From now on the value would fail the check: only a remembered value is accepted.
	st.cookies = newTestStore(t).cookies // other keys
	cases := []struct {
		name    string
		advance time.Duration
		cookie  *http.Cookie
		wantOK  bool
	}{
		{"same value, remembered", time.Minute, ck, true},
		{"tampered value", 0, &http.Cookie{Name: ck.Name, Value: ck.Value[:len(ck.Value)-2] + "AA"}, false},
		{"same value after decodedFor", decodedFor, ck, false},
	}
	for _, tc := range cases {
		now = now.Add(tc.advance)
		info, ok := st.Read(requestWith(tc.cookie))
		if ok != tc.wantOK {
			t.Fatalf("%s: ok = %v, want %v", tc.name, ok, tc.wantOK)
		}
		if ok && info != want {
			t.Fatalf("%s: info = %+v, want %+v", tc.name, info, want)
		}
		if !ok && info.ID == want.ID {
			t.Fatalf("%s: a rejected cookie kept its id", tc.name)
		}
	}
}

// BenchmarkRead is the device cookie of a returning browser, read on every request.
//
//	go test -run '^$' -bench Read -benchmem ./internal/device/
func BenchmarkRead(b *testing.B) {
	st := newTestStore(b)
	ck := cookieFor(b, st, Info{ID: "0123456789abcdef01234567"})
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := st.Read(requestWith(ck)); !ok {
			b.Fatal("cookie not accepted")
		}
	}
}
