package bff

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	staffpages "github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/etag"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// chrome builds the page frame's view model for this request.
func (s *Server) chrome(c echo.Context, title string) layouts.Chrome {
	dev := deviceOf(c)
	l := loc(c)
	ch := layouts.Chrome{
		Lang:      l.Lang(),
		Languages: s.languageLinks(c),
		Title:     title,
		SiteName:  s.cfg.SiteName,
		Mode:      string(dev.Mode),
		CSRFToken: csrfToken(c),
		CSSPath:   s.assets.Path("css/app.css"),
		HTMXPath:  s.assets.Path("vendor/htmx-2.0.11.min.js"),
		JSPath:    s.assets.Path("js/app.js"),
		IconPath:  s.assets.Path("img/favicon.svg"),
		HomeURL:   s.url(RouteHome),
	}
	current := c.Path()
	for _, n := range []struct{ label, route string }{
		{l.T("nav.whats_on"), RouteWhatsOn},
		{l.T("nav.my_booking"), RouteFindBooking},
	} {
		ch.Nav = append(ch.Nav, layouts.Link{Label: n.label, URL: s.url(n.route), Current: current == paths[n.route]})
	}
	if name := s.staffMember(c); name != "" {
		ch.StaffName, ch.SignOutURL = name, s.url(RouteStaffSignOut)
		ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.needs_attention"), URL: s.url(RouteStaffAttention), Current: current == paths[RouteStaffAttention]})
		if s.isSupervisor(c) {
			ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.audit"), URL: s.url(staffpages.RouteAudit), Current: current == paths[staffpages.RouteAudit]})
			ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.terminals"), URL: s.url(staffpages.RouteDevices), Current: current == paths[staffpages.RouteDevices]})
			ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.staff_accounts"), URL: s.url(staffpages.RouteAccounts), Current: current == paths[staffpages.RouteAccounts]})
		}
		if dev.Mode == device.Counter {
			ch.NextCustomerURL = s.url(RouteNextCustomer)
		}
	}
	if dev.Mode == device.Kiosk {
		s.kioskChrome(c, &ch) // kiosk_chrome.go: its own nav, the idle timer, the refresh without JavaScript
	}
	return ch
}

// render writes a page: the whole document normally, only the body component for an htmx
// request (see fragment). Vary tells caches the two differ.
func (s *Server) render(c echo.Context, status int, title string, body templ.Component) error {
	if isHTMX(c) {
		return s.fragment(c, status, body)
	}
	c.Response().Header().Add("Vary", "HX-Request")
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	ctx := c.Request().Context()
	return layouts.Base(s.chrome(c, title)).Render(templ.WithChildren(ctx, body), c.Response())
}

// fragment writes an htmx fragment. A fragment answering a GET with 200 (a poller asking
// again) carries an ETag of its content and may be kept by the browser, privately, for
// revalidation only (no-cache instead of the site's no-store); when it has not changed the
// browser's If-None-Match gets a 304 without the body (http.ServeContent answers it).
// Fragments are small, so they are rendered into memory first.
func (s *Server) fragment(c echo.Context, status int, body templ.Component) error {
	h := c.Response().Header()
	h.Add("Vary", "HX-Request")
	h.Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	ctx := c.Request().Context()
	if c.Request().Method != http.MethodGet || status != http.StatusOK {
		c.Response().WriteHeader(status)
		return body.Render(ctx, c.Response())
	}
	var buf bytes.Buffer
	if err := body.Render(ctx, &buf); err != nil {
		return fmt.Errorf("render fragment: %w", err)
	}
	h.Set("ETag", etag.Of(buf.Bytes()))
	h.Set("Cache-Control", "no-cache, private")
	http.ServeContent(c.Response(), c.Request(), "", time.Time{}, bytes.NewReader(buf.Bytes()))
	return nil
}

// redirect sends the browser on after a POST (Post/Redirect/Get). For htmx requests it uses
// HX-Redirect so the whole page changes, not a fragment.
func (s *Server) redirect(c echo.Context, to string) error { return web.Redirect(c, to) }
