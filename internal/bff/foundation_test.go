package bff_test

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/keys"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

func TestSessionRoundTripOnEveryStore(t *testing.T) {
	cases := []struct {
		name string
		opts func(t *testing.T) bfftest.HarnessOpts
	}{
		{"sqlite", func(t *testing.T) bfftest.HarnessOpts { return bfftest.HarnessOpts{} }},
		{"postgres", func(t *testing.T) bfftest.HarnessOpts {
			return bfftest.HarnessOpts{DatabaseURL: testenv.PostgresURL(t), SessionStore: storage.SessionsPostgres}
		}},
		{"redis", func(t *testing.T) bfftest.HarnessOpts {
			return bfftest.HarnessOpts{SessionStore: storage.SessionsRedis, RedisURL: testenv.RedisURL(t)}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := bfftest.NewHarness(t, tc.opts(t))
			bfftest.AddSessionProbe(h)
			resp, _ := h.Post("/test/put", "/device", url.Values{"v": {"seat F12 " + tc.name}})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("put: status %d", resp.StatusCode)
			}
			ck := h.Cookie("session")
			if ck == nil {
				t.Fatal("no session cookie after a write")
			}
			_, body := h.Get("/test/get")
			if body != "seat F12 "+tc.name {
				t.Fatalf("read back %q", body)
			}
			// A second client without the cookie sees nothing.
			h2 := *h
			h2.Client = &http.Client{}
			_, body = h2.Get("/test/get")
			if body != "" {
				t.Fatalf("a visitor without the cookie read %q", body)
			}
		})
	}
}

func TestSessionTokenChangesOnRenewal(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	bfftest.AddSessionProbe(h)
	h.Post("/test/put", "/device", url.Values{"v": {"kept"}})
	before := h.Cookie("session").Value
	resp, _ := h.Post("/test/renew", "/device", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("renew status %d", resp.StatusCode)
	}
	after := h.Cookie("session").Value
	if after == before || after == "" {
		t.Fatalf("token not renewed: before %q after %q", before, after)
	}
	if _, body := h.Get("/test/get"); body != "kept" {
		t.Fatalf("data lost on renewal: %q", body)
	}
	// The old token no longer opens the session.
	old := &http.Client{}
	req, _ := http.NewRequest("GET", h.TS.URL+"/test/get", nil)
	req.AddCookie(&http.Cookie{Name: "session", Value: before})
	r, err := old.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	buf := make([]byte, 64)
	n, _ := r.Body.Read(buf)
	if string(buf[:n]) == "kept" {
		t.Fatal("old token still opens the session")
	}
}

func TestGetDoesNotWriteSessionStore(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	bfftest.AddSessionProbe(h)
	h.Post("/test/put", "/device", url.Values{"v": {"x"}})
	before := h.Store.Commits.Load()
	if before == 0 {
		t.Fatal("the write was not committed")
	}
	for _, p := range []string{"/", "/test/get", "/device", "/nope"} {
		h.Get(p)
	}
	if after := h.Store.Commits.Load(); after != before {
		t.Fatalf("GETs wrote the session store %d times", after-before)
	}
}

func TestCSRF(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	bfftest.AddSessionProbe(h)
	tok := h.CSRFToken("/device")
	cases := []struct {
		name   string
		form   url.Values
		header http.Header
		want   int
	}{
		{"cross-site browser POST", url.Values{"v": {"a"}, "_csrf": {tok}}, http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"same-site subdomain POST without token", url.Values{"v": {"a"}}, http.Header{"Sec-Fetch-Site": {"same-site"}}, http.StatusForbidden},
		{"no token at all", url.Values{"v": {"a"}}, nil, http.StatusForbidden},
		{"wrong token", url.Values{"v": {"a"}, "_csrf": {"forged"}}, nil, http.StatusForbidden},
		{"same-origin browser POST", url.Values{"v": {"a"}}, http.Header{"Sec-Fetch-Site": {"same-origin"}}, http.StatusOK},
		{"form token", url.Values{"v": {"a"}, "_csrf": {tok}}, nil, http.StatusOK},
		{"htmx header token", url.Values{"v": {"a"}}, http.Header{"X-Csrf-Token": {tok}, "Hx-Request": {"true"}}, http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := h.Do("POST", "/test/put", tc.form, tc.header)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			if tc.want == http.StatusForbidden && !strings.Contains(body, "This form has expired") {
				t.Fatalf("403 without the clear page: %s", body)
			}
		})
	}
}

func TestSecurityHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, publicURL string
		hsts            bool
	}{{"http", "http://127.0.0.1", false}, {"https", "https://cinema.example", true}} {
		t.Run(tc.name, func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{PublicURL: tc.publicURL})
			resp, body := h.Get("/")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("home status %d", resp.StatusCode)
			}
			csp := resp.Header.Get("Content-Security-Policy")
			for _, want := range []string{"script-src 'self' 'nonce-", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
				t.Errorf("CSP allows unsafe sources: %q", csp)
			}
			nonce := strings.SplitN(strings.SplitN(csp, "'nonce-", 2)[1], "'", 2)[0]
			doc := h.Doc(body)
			doc.Find("script").Each(func(_ int, s *goquery_Selection) {
				if n, _ := s.Attr("nonce"); n != nonce {
					t.Errorf("script without the request nonce: %v", s.AttrOr("src", "inline"))
				}
			})
			for k, v := range map[string]string{
				"X-Content-Type-Options": "nosniff",
				"Referrer-Policy":        "same-origin",
				"Cache-Control":          "no-store",
			} {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if got := resp.Header.Get("X-Request-ID"); got == "" {
				t.Error("no X-Request-ID")
			}
			if hsts := resp.Header.Get("Strict-Transport-Security"); (hsts != "") != tc.hsts {
				t.Errorf("HSTS %q, want present=%v", hsts, tc.hsts)
			}
			// A second page gets a different nonce.
			resp2, _ := h.Get("/")
			if resp2.Header.Get("Content-Security-Policy") == csp {
				t.Error("nonce reused across requests")
			}
		})
	}
}

func TestSecureCookiesOnHTTPS(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{PublicURL: "https://cinema.example"})
	bfftest.AddSessionProbe(h)
	tok := h.CSRFToken("/device")
	resp, _ := h.Do("POST", "/test/put", url.Values{"v": {"x"}, "_csrf": {tok}}, nil)
	var names []string
	for _, c := range resp.Cookies() {
		names = append(names, c.Name)
		if c.Name == "__Host-session" {
			if !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" {
				t.Errorf("session cookie attributes wrong: %+v", c)
			}
		}
	}
	if !strings.Contains(strings.Join(names, ","), "__Host-session") {
		t.Errorf("no __Host-session cookie, got %v", names)
	}
}

func TestDeviceCookieOutlivesVisitAndRejectsTampering(t *testing.T) {
	k1, _ := keys.Generate()
	pairs, _ := keys.Parse(k1)
	// The servers below share the database: the kiosk's enrolment is a row in it.
	shared := "sqlite:" + filepath.Join(t.TempDir(), "shared.db")
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Keys: pairs, DatabaseURL: shared})
	bfftest.AddSessionProbe(h)
	h.Enrol(device.Kiosk)
	h.Post("/test/put", "/device", url.Values{"v": {"visit data"}})
	// End the visit (what the kiosk's idle reset does).
	resp, _ := h.Post("/visit/reset", "/device", nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("reset: %d", resp.StatusCode)
	}
	if _, body := h.Get("/test/get"); body != "" {
		t.Fatalf("visit data survived the reset: %q", body)
	}
	_, body := h.Get("/device")
	if got := h.Doc(body).Find(`[data-testid="device-mode"]`).Text(); got != "Lobby kiosk" {
		t.Fatalf("mode after visit end = %q, want Lobby kiosk", got)
	}
	if !strings.Contains(body, `class="mode-kiosk"`) {
		t.Error("body class is not mode-kiosk")
	}

	// Tampering: flip a character of the cookie value.
	dc := h.Cookie("device")
	v := []byte(dc.Value)
	v[len(v)/2] ^= 1
	req, _ := http.NewRequest("GET", h.TS.URL+"/device", nil)
	req.AddCookie(&http.Cookie{Name: "device", Value: string(v)})
	r, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	d := bfftest.DocFrom(t, r)
	if got := d.Find(`[data-testid="device-mode"]`).Text(); got != "Customer" {
		t.Fatalf("tampered cookie accepted: mode %q", got)
	}

	// Rotation: a server with a new key first and the old one second still reads the cookie.
	k2, _ := keys.Generate()
	rotated, _ := keys.Parse(k2 + "," + k1)
	h2 := bfftest.NewHarness(t, bfftest.HarnessOpts{Keys: rotated, DatabaseURL: shared})
	req, _ = http.NewRequest("GET", h2.TS.URL+"/device", nil)
	req.AddCookie(&http.Cookie{Name: "device", Value: dc.Value})
	r2, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()
	if got := bfftest.DocFrom(t, r2).Find(`[data-testid="device-mode"]`).Text(); got != "Lobby kiosk" {
		t.Fatalf("old-key cookie not accepted after rotation: %q", got)
	}
	// A server that dropped the old key does not.
	only2, _ := keys.Parse(k2)
	h3 := bfftest.NewHarness(t, bfftest.HarnessOpts{Keys: only2, DatabaseURL: shared})
	req, _ = http.NewRequest("GET", h3.TS.URL+"/device", nil)
	req.AddCookie(&http.Cookie{Name: "device", Value: dc.Value})
	r3, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r3.Body.Close()
	if got := bfftest.DocFrom(t, r3).Find(`[data-testid="device-mode"]`).Text(); got != "Customer" {
		t.Fatalf("cookie signed with a retired key accepted: %q", got)
	}
}

func TestErrorPages(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	h.Srv.Echo.GET("/test/boom", func(c echo.Context) error { return errBoom })
	resp, body := h.Get("/no/such/page")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "Page not found") || !strings.Contains(body, "<main") {
		t.Fatalf("404 page: %d %s", resp.StatusCode, body)
	}
	resp, body = h.Get("/test/boom")
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("500 status %d", resp.StatusCode)
	}
	ref := h.Doc(body).Find(`[data-testid="error-reference"]`).Text()
	if ref == "" || ref != resp.Header.Get("X-Request-ID") {
		t.Fatalf("reference %q does not quote the request id %q", ref, resp.Header.Get("X-Request-ID"))
	}
	if strings.Contains(body, errBoom.Error()) {
		t.Fatal("internal error text leaked to the page")
	}
	resp, body = h.Do("GET", "/no/such/page", nil, http.Header{"Hx-Request": {"true"}})
	if resp.StatusCode != http.StatusNotFound || strings.Contains(body, "<html") || resp.Header.Get("HX-Retarget") != "#htmx-error" {
		t.Fatalf("htmx error is not a retargeted fragment: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	// Invalid device mode: an application error shown as it is.
	h.SignInSupervisor()
	resp, body = h.Post("/device", "/device", url.Values{"mode": {"spaceship"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Please choose one of the three terminal modes.") {
		t.Fatalf("invalid mode: %d %s", resp.StatusCode, body)
	}
}

func TestHomeTellsWhatToDo(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	_, body := h.Get("/")
	d := h.Doc(body)
	if d.Find("main h1").Length() != 1 || d.Find(`a.skip-link[href="#main"]`).Length() != 1 {
		t.Fatal("home lacks its heading or skip link")
	}
	for _, id := range []string{"home-buy", "home-manage"} {
		if d.Find(`[data-testid="`+id+`"] a`).Length() == 0 {
			t.Errorf("home card %s has no link", id)
		}
	}
	css, _ := d.Find(`link[rel="stylesheet"]`).Attr("href")
	resp, _ := h.Get(css)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("stylesheet %s: %d %q", css, resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
}

func TestBodyLimit(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	tok := h.CSRFToken("/device")
	big := strings.Repeat("x", 100<<10)
	resp, body := h.Do("POST", "/device", url.Values{"_csrf": {tok}, "mode": {"kiosk"}, "pad": {big}}, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "Too much data") {
		t.Fatalf("100 KB form: %d %s", resp.StatusCode, body)
	}
}
