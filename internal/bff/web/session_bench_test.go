package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2/memstore"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/keys"
	"github.com/cinemabff/cinemabff/static"
)

// BenchmarkSessionLoad is the cost of the middleware chain on a GET of a visit that has a
// session (a found booking and a purchase reference, as on the booking page) and a device
// cookie: session load and the check whether to commit, the device cookie, CSRF, security
// headers, metrics and the access log. The handler itself does nothing. Run it with
//
//	go test -run '^$' -bench SessionLoad -benchmem ./internal/bff/
func BenchmarkSessionLoad(b *testing.B) {
	k, err := keys.Generate()
	if err != nil {
		b.Fatal(err)
	}
	pairs, err := keys.Parse(k)
	if err != nil {
		b.Fatal(err)
	}
	assets, err := static.New()
	if err != nil {
		b.Fatal(err)
	}
	store := &bfftest.CountingStore{Store: memstore.NewWithCleanupInterval(0)}
	devices := device.NewStore(pairs, false)
	s, err := bff.New(bff.Deps{Config: bff.Config{Config: web.Config{PublicURL: &url.URL{Scheme: "http", Host: "example.test"}}},
		SessionStore: store, Device: devices, Assets: assets})
	if err != nil {
		b.Fatal(err)
	}
	s.Echo.GET("/bench", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })

	// A visit as the booking page sees it.
	ctx, err := s.Kernel.Sessions.Load(context.Background(), "")
	if err != nil {
		b.Fatal(err)
	}
	s.Kernel.Sessions.Put(ctx, visit.SessBookingCinema, "1113")
	s.Kernel.Sessions.Put(ctx, visit.SessBookingNumber, int64(12345678))
	s.Kernel.Sessions.Put(ctx, visit.SessBuyRefs, `["3f1c2a9e0b7d4c58a6e1f2d3c4b5a697"]`)
	s.Kernel.Sessions.Put(ctx, web.SessTouched, time.Now().Unix())
	token, _, err := s.Kernel.Sessions.Commit(ctx)
	if err != nil {
		b.Fatal(err)
	}
	rec := httptest.NewRecorder()
	if err := devices.Write(rec, httptest.NewRequest("GET", "/", nil), device.Info{ID: "0123456789abcdef01234567"}); err != nil {
		b.Fatal(err)
	}
	cookies := append(rec.Result().Cookies(), &http.Cookie{Name: "session", Value: token})

	before := store.Commits.Load()
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", "/bench", nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusNoContent {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	b.StopTimer()
	if n := store.Commits.Load() - before; n != 0 {
		b.Fatalf("the GETs wrote the session store %d times", n)
	}
}
