package web

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestRoutesURL(t *testing.T) {
	r := Routes{"home": "/", "entry": "/booking/edit/payment/:entry", "attention": "/staff/attention/:kind/:ref/retry"}
	for _, tc := range []struct {
		name   string
		params []any
		want   string
		ok     bool
	}{
		{"home", nil, "/", true},
		{"entry", []any{"e-1"}, "/booking/edit/payment/e-1", true},
		{"entry", []any{"a/b c"}, "/booking/edit/payment/a%2Fb%20c", true}, // a parameter never adds a segment
		{"attention", []any{"ledger", 42}, "/staff/attention/ledger/42/retry", true},
		{"nope", nil, "/", false},
	} {
		got, ok := r.URL(tc.name, tc.params...)
		if got != tc.want || ok != tc.ok {
			t.Errorf("URL(%q, %v) = %q, %v; want %q, %v", tc.name, tc.params, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRedirect(t *testing.T) {
	e := echo.New()
	for _, tc := range []struct {
		htmx            bool
		target, current string // HX-Target, HX-Current-URL
		status          int
		header, to      string
	}{
		{false, "", "", http.StatusSeeOther, "Location", "/booking"},
		{true, "", "", http.StatusNoContent, "HX-Redirect", "/booking"},
		// a part of the page updated in place, sent back to its own page: htmx follows the 303
		{true, "edit-live", "http://cinema.example/booking/edit", http.StatusSeeOther, "Location", "/booking/edit"},
		// the same part sent elsewhere: the whole page goes there
		{true, "edit-live", "http://cinema.example/booking/edit", http.StatusNoContent, "HX-Redirect", "/booking"},
		// no target (a boosted link, a poll): the whole page
		{true, "", "http://cinema.example/booking/edit", http.StatusNoContent, "HX-Redirect", "/booking/edit"},
	} {
		req := httptest.NewRequest(http.MethodPost, "/x", nil)
		if tc.htmx {
			req.Header.Set("HX-Request", "true")
			req.Header.Set("HX-Target", tc.target)
			req.Header.Set("HX-Current-URL", tc.current)
		}
		rec := httptest.NewRecorder()
		if err := Redirect(e.NewContext(req, rec), tc.to); err != nil {
			t.Fatal(err)
		}
		if rec.Code != tc.status || rec.Header().Get(tc.header) != tc.to {
			t.Errorf("htmx=%v: %d %s=%q; want %d %q", tc.htmx, rec.Code, tc.header, rec.Header().Get(tc.header), tc.status, tc.to)
		}
	}
}

func TestRoutesPathLogsUnknownNames(t *testing.T) {
	var buf strings.Builder
	log := slog.New(slog.NewTextHandler(&buf, nil))
	r := Routes{"entry": "/booking/edit/payment/:entry"}
	if got := r.Path(log, "entry", "e-1"); got != "/booking/edit/payment/e-1" || buf.Len() != 0 {
		t.Fatalf("Path(entry) = %q, logged %q", got, buf.String())
	}
	if got := r.Path(log, "nope"); got != "/" || !strings.Contains(buf.String(), "unknown route name") || !strings.Contains(buf.String(), "nope") {
		t.Fatalf("Path(nope) = %q, logged %q; want / and the name logged", got, buf.String())
	}
}
