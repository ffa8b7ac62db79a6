package walletflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/internal/wallet"
	"github.com/cinemabff/cinemabff/internal/wallet/walletlink"
)

type fakePasses struct {
	asked []string
	err   error
}

func (f *fakePasses) ApplePass(_ context.Context, cinemaID string, number int64, _ string) ([]byte, time.Time, error) {
	f.asked = append(f.asked, fmt.Sprint("apple ", cinemaID, " ", number))
	return []byte("PK\x03\x04pass"), time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC), f.err
}

func (f *fakePasses) GoogleSaveURL(_ context.Context, cinemaID string, number int64, lang string) (string, error) {
	f.asked = append(f.asked, "google "+cinemaID)
	return "https://pay.google.com/gp/v/save/abc", f.err
}

type fakeSite struct{}

func (fakeSite) FromUpstream(err error, backURL, backLabel string) error {
	return &web.Error{Code: web.EUnavailable, Err: err, BackURL: backURL, BackLabel: backLabel}
}

// kernel has the flow's routes registered on an Echo of its own (routed): the URLs the flow
// builds are the ones it serves.
type kernel struct {
	k *web.Kernel
	e *echo.Echo
}

func routed(h *Handler) kernel {
	k := kernel{k: &web.Kernel{Logger: slog.New(slog.DiscardHandler)}, e: echo.New()}
	h.Routes(k.k.Router(k.e))
	return k
}

func (k kernel) URL(name string, params ...any) string { return k.k.URL(name, params...) }

// serve answers one GET through the flow's routes; err is what the handler returned.
func serve(t *testing.T, h *Handler, path string) (*httptest.ResponseRecorder, error) {
	t.Helper()
	e := routed(h).e
	var got error
	e.HTTPErrorHandler = func(err error, c echo.Context) { got = err; _ = c.NoContent(599) }
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec, got
}

func newHandler(t *testing.T, p Passes) *Handler {
	t.Helper()
	links, err := walletlink.NewSigner([]byte("sixteen bytes or more of key"))
	if err != nil {
		t.Fatal(err)
	}
	return &Handler{Site: fakeSite{}, Links: links, Passes: p, Home: "/"}
}

func TestApplePassIsServedForItsBookingOnly(t *testing.T) {
	p := &fakePasses{}
	h := newHandler(t, p)
	apple, google := URLs(routed(h).URL, h.Links, "0001", 100002)
	if !strings.HasPrefix(apple, "/wallet/") || !strings.HasSuffix(apple, "/booking.pkpass") || !strings.HasSuffix(google, "/google") {
		t.Fatalf("links %q %q", apple, google)
	}
	rec, err := serve(t, h, apple)
	if err != nil || rec.Code != http.StatusOK {
		t.Fatalf("apple pass: %d %v", rec.Code, err)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/vnd.apple.pkpass" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := rec.Header().Get("Content-Disposition"); !strings.Contains(cd, `filename="booking-100002.pkpass"`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	if lm := rec.Header().Get("Last-Modified"); lm != "Sat, 28 Nov 2026 09:00:00 GMT" {
		t.Errorf("Last-Modified %q", lm)
	}
	if len(p.asked) != 1 || p.asked[0] != "apple 0001 100002" {
		t.Errorf("passes asked %v", p.asked)
	}
	rec, err = serve(t, h, google)
	if err != nil || rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "https://pay.google.com/gp/v/save/abc" {
		t.Fatalf("google link: %d %q %v", rec.Code, rec.Header().Get("Location"), err)
	}
}

func TestWalletLinkThatWasNotMadeHereShowsNothing(t *testing.T) {
	p := &fakePasses{}
	h := newHandler(t, p)
	apple, _ := URLs(routed(h).URL, h.Links, "0001", 100002)
	for _, path := range []string{
		strings.Replace(apple, "0001.100002", "0001.100004", 1), // another booking, same signature
		"/wallet/0001.100002.aaaaaaaaaaaaaaaaaaaaaaaaaa/booking.pkpass",
		"/wallet/nonsense/google",
	} {
		_, err := serve(t, h, path)
		var we *web.Error
		if !errors.As(err, &we) || we.Code != web.ENotFound || we.HeadingID != "wallet.link_not_valid.heading" {
			t.Errorf("%s: %v, want the link-not-valid page", path, err)
		}
	}
	if len(p.asked) != 0 {
		t.Errorf("a refused link still read passes: %v", p.asked)
	}
}

func TestWalletPassErrorsInWords(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		code web.Code
	}{
		"no tickets left":   {wallet.ErrNoTickets, web.EGone},
		"ticketing is down": {errors.New("upstream: unavailable"), web.EUnavailable},
		"booking unknown":   {fmt.Errorf("read booking: %w", upstream.ErrNotFound), web.EGone},
		"link expired":      {&wallet.LinkExpiredError{Until: time.Date(2026, 12, 6, 20, 30, 0, 0, time.UTC), Zone: time.UTC}, web.EGone},
	} {
		h := newHandler(t, &fakePasses{err: tc.err})
		apple, _ := URLs(routed(h).URL, h.Links, "0001", 100002)
		_, err := serve(t, h, apple)
		var we *web.Error
		if !errors.As(err, &we) || we.Code != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
}
