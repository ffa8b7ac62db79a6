package bff

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// The language of a page is, in this order: the one the person chose (?lang=, remembered in a
// cookie; on a kiosk in the visit's session, so the next guest starts afresh), the enrolled
// device's default (a kiosk's or a counter's), what the browser asks for (Accept-Language), the site's fallback.
const (
	langParam      = "lang"
	langCookieName = "lang"
	sessLang       = "lang"
	langCookieLife = 365 * 24 * time.Hour
)

func (s *Server) langCookie() string {
	if s.cfg.Secure() {
		return "__Host-" + langCookieName
	}
	return langCookieName
}

// chooseLanguage puts the request's localizer into its context. A GET with ?lang=xx remembers
// the choice and redirects to the same address without it, so the choice is one plain link
// that works without JavaScript and the address people share carries no language.
func (s *Server) chooseLanguage(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if isInfraPath(r.URL.Path) {
			return next(c)
		}
		if code := r.URL.Query().Get(langParam); code != "" && r.Method == http.MethodGet {
			if tag, ok := s.langs.Parse(code); ok {
				s.rememberLanguage(c, tag)
				return c.Redirect(http.StatusSeeOther, withoutLang(r.URL))
			}
		}
		l := s.langs.For(s.requestLanguage(c))
		c.SetRequest(r.WithContext(i18n.NewContext(r.Context(), l)))
		h := c.Response().Header()
		h.Add("Vary", "Accept-Language")
		h.Set("Content-Language", l.Lang())
		return next(c)
	}
}

// withoutLang is the request's own address on this site without ?lang= (selflink.go: built
// from the escaped path), or the home page.
func withoutLang(u *url.URL) string {
	q := u.Query()
	q.Del(langParam)
	to := *u
	to.RawQuery = q.Encode()
	if p, ok := web.RequestLink(&to); ok {
		return p
	}
	return web.HomePath
}

// requestLanguage is the language of this request (see the order above).
func (s *Server) requestLanguage(c echo.Context) language.Tag {
	if isKiosk(c) {
		if tag, ok := s.langs.Parse(s.sessions.GetString(c.Request().Context(), sessLang)); ok {
			return tag
		}
		if tag, ok := s.langs.Parse(deviceOf(c).Language); ok {
			return tag
		}
		return s.langs.Fallback()
	}
	if ck, err := c.Cookie(s.langCookie()); err == nil {
		if tag, ok := s.langs.Parse(ck.Value); ok {
			return tag
		}
	}
	if tag, ok := s.langs.Parse(deviceOf(c).Language); ok {
		return tag // an enrolled counter's default
	}
	return s.langs.Match(c.Request().Header.Get("Accept-Language"))
}

// rememberLanguage keeps a person's choice: in a cookie, or on a kiosk in the visit.
func (s *Server) rememberLanguage(c echo.Context, tag language.Tag) {
	if isKiosk(c) {
		s.sessions.Put(c.Request().Context(), sessLang, tag.String())
		return
	}
	c.SetCookie(&http.Cookie{Name: s.langCookie(), Value: tag.String(), Path: "/", MaxAge: int(langCookieLife.Seconds()),
		HttpOnly: true, Secure: s.cfg.Secure(), SameSite: http.SameSiteLaxMode})
}

// loc is the request's localizer.
func loc(c echo.Context) *i18n.Localizer { return web.Loc(c) }

// languageLinks are the header's language switch: one plain link per language to this page
// (a GET whose address is on this site) or to the home page, each named in its own language.
func (s *Server) languageLinks(c echo.Context) []layouts.LangLink {
	here, q := s.url(RouteHome), url.Values{}
	if r := c.Request(); r.Method == http.MethodGet && !isHTMX(c) {
		if p, ok := web.LocalLink(r.URL.EscapedPath()); ok { // selflink.go: never the decoded path
			here, q = p, r.URL.Query()
		}
	}
	current := loc(c).Tag()
	var out []layouts.LangLink
	for _, t := range i18n.Languages {
		q.Set(langParam, t.String())
		out = append(out, layouts.LangLink{Lang: t.String(), Name: s.langs.For(t).T("language.name"), URL: here + "?" + q.Encode(), Current: t == current})
	}
	return out
}

// english writes the records (the audit trail, ledger notes, logs) from the same messages a
// person reads in their own language: in English, whatever the request's language.
func (s *Server) english() *i18n.Localizer { return s.langs.For(language.English) }
