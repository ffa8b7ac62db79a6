package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/selflink"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// The language of a page is, in this order: the one the person chose (?lang=, remembered in a
// cookie; on a kiosk in the visit's session, so the next guest starts afresh), the enrolled
// device's default (a kiosk's or a counter's), what the browser asks for (Accept-Language), the site's fallback.
const (
	langParam      = "lang"
	LangCookieName = "lang"
	SessLang       = "lang"
	langCookieLife = 365 * 24 * time.Hour
)

func (k *Kernel) langCookie() string {
	if k.Cfg.Secure() {
		return "__Host-" + LangCookieName
	}
	return LangCookieName
}

// chooseLanguage puts the request's localizer into its context. A GET with ?lang=xx remembers
// the choice and redirects to the same address without it, so the choice is one plain link
// that works without JavaScript and the address people share carries no language.
func (k *Kernel) chooseLanguage(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if k.isInfraPath(r.URL.Path) {
			return next(c)
		}
		if code := r.URL.Query().Get(langParam); code != "" && r.Method == http.MethodGet {
			if tag, ok := k.Langs.Parse(code); ok {
				k.RememberLanguage(c, tag)
				return c.Redirect(http.StatusSeeOther, withoutLang(r.URL))
			}
		}
		l := k.Langs.For(k.RequestLanguage(c))
		if DeviceOf(c).Mode == device.Counter {
			l = k.Langs.ForAudience(l.Tag(), "counter") // the clerk reads the page, not the customer
		}
		c.SetRequest(r.WithContext(i18n.NewContext(r.Context(), l)))
		h := c.Response().Header()
		h.Add("Vary", "Accept-Language")
		h.Set("Content-Language", l.Lang())
		return next(c)
	}
}

// withoutLang is the request's own address on this site without ?lang= (package selflink: built
// from the escaped path), or the home page.
func withoutLang(u *url.URL) string {
	q := u.Query()
	q.Del(langParam)
	to := *u
	to.RawQuery = q.Encode()
	if p, ok := selflink.FromRequest(&to); ok {
		return p
	}
	return selflink.Home
}

// RequestLanguage is the language of this request (see the order above).
func (k *Kernel) RequestLanguage(c echo.Context) language.Tag {
	if IsKiosk(c) {
		if tag, ok := k.Langs.Parse(k.Sessions.GetString(c.Request().Context(), SessLang)); ok {
			return tag
		}
		if tag, ok := k.Langs.Parse(DeviceOf(c).Language); ok {
			return tag
		}
		return k.Langs.Fallback()
	}
	if ck, err := c.Cookie(k.langCookie()); err == nil {
		if tag, ok := k.Langs.Parse(ck.Value); ok {
			return tag
		}
	}
	if tag, ok := k.Langs.Parse(DeviceOf(c).Language); ok {
		return tag // an enrolled counter's default
	}
	return k.Langs.Match(c.Request().Header.Get("Accept-Language"))
}

// RememberLanguage keeps a person's choice: in a cookie, or on a kiosk in the visit.
func (k *Kernel) RememberLanguage(c echo.Context, tag language.Tag) {
	if IsKiosk(c) {
		k.Sessions.Put(c.Request().Context(), SessLang, tag.String())
		return
	}
	c.SetCookie(&http.Cookie{Name: k.langCookie(), Value: tag.String(), Path: "/", MaxAge: int(langCookieLife.Seconds()),
		HttpOnly: true, Secure: k.Cfg.Secure(), SameSite: http.SameSiteLaxMode})
}

// LanguageLinks are the header's language switch: one plain link per language to this page
// (a GET whose address is on this site) or to the home page, each named in its own language.
func (k *Kernel) LanguageLinks(c echo.Context) []layouts.LangLink {
	here, q := k.URL("home"), url.Values{}
	if r := c.Request(); r.Method == http.MethodGet && !IsHTMX(c) {
		if p, ok := selflink.Local(r.URL.EscapedPath()); ok { // never the decoded path (package selflink)
			here, q = p, r.URL.Query()
		}
	}
	current := Loc(c).Tag()
	var out []layouts.LangLink
	for _, t := range i18n.Languages {
		q.Set(langParam, t.String())
		out = append(out, layouts.LangLink{Lang: t.String(), Name: k.Langs.For(t).T("language.name"), URL: here + "?" + q.Encode(), Current: t == current})
	}
	return out
}

// English writes the records (the audit trail, ledger notes, logs) from the same messages a
// person reads in their own language: in English, whatever the request's language.
func (k *Kernel) English() *i18n.Localizer { return k.Langs.For(language.English) }
