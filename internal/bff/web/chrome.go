package web

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/etag"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// chrome builds the page frame's view model for this request.
func (s *Kernel) Chrome(c echo.Context, title string) layouts.Chrome {
	dev := DeviceOf(c)
	l := Loc(c)
	ch := layouts.Chrome{
		Lang:      l.Lang(),
		Languages: s.LanguageLinks(c),
		Title:     title,
		SiteName:  s.Cfg.SiteName,
		Mode:      string(dev.Mode),
		CSRFToken: CSRFToken(c),
		CSSPath:   s.Assets.Path("css/app.css"),
		HTMXPath:  s.Assets.Path("vendor/htmx-2.0.11.min.js"),
		JSPath:    s.Assets.Path("js/app.js"),
		IconPath:  s.Assets.Path("img/favicon.svg"),
		HomeURL:   s.URL(RouteHome),
	}
	current := c.Path()
	findLabel := l.T("nav.my_booking")
	if s.AtCounter(c) {
		findLabel = l.T("nav.counter_bookings") // staff find anyone's booking
	}
	for _, n := range []struct{ label, route string }{
		{l.T("nav.whats_on"), RouteWhatsOn},
		{findLabel, RouteFindBooking},
	} {
		ch.Nav = append(ch.Nav, layouts.Link{Label: n.label, URL: s.URL(n.route), Current: current == Paths[n.route]})
	}
	if name := s.StaffMember(c); name != "" {
		ch.StaffName, ch.SignOutURL = name, s.URL(RouteStaffSignOut)
		ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.needs_attention"), URL: s.URL(RouteStaffAttention), Current: current == Paths[RouteStaffAttention]})
		if s.IsSupervisor(c) {
			ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.audit"), URL: s.URL(RouteStaffAudit), Current: current == Paths[RouteStaffAudit]})
			ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.terminals"), URL: s.URL(RouteStaffDevices), Current: current == Paths[RouteStaffDevices]})
			ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.staff_accounts"), URL: s.URL(RouteStaffAccounts), Current: current == Paths[RouteStaffAccounts]})
		}
		if dev.Mode == device.Counter {
			ch.NextCustomerURL = s.URL(RouteNextCustomer)
		}
	}
	if dev.Mode == device.Kiosk {
		s.KioskChrome(c, &ch) // kiosk_chrome.go: its own nav, the idle timer, the refresh without JavaScript
	}
	return ch
}

// render writes a page: the whole document normally, only the body component for an htmx
// request (see fragment). Vary tells caches the two differ.
func (s *Kernel) Render(c echo.Context, status int, title string, body templ.Component) error {
	if IsHTMX(c) {
		return s.Fragment(c, status, body)
	}
	c.Response().Header().Add("Vary", "HX-Request")
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	ctx := c.Request().Context()
	return layouts.Base(s.Chrome(c, title)).Render(templ.WithChildren(ctx, body), c.Response())
}

// fragment writes an htmx fragment. A fragment answering a GET with 200 (a poller asking
// again) carries an ETag of its content and may be kept by the browser, privately, for
// revalidation only (no-cache instead of the site's no-store); when it has not changed the
// browser's If-None-Match gets a 304 without the body (http.ServeContent answers it).
// Fragments are small, so they are rendered into memory first.
func (s *Kernel) Fragment(c echo.Context, status int, body templ.Component) error {
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
func (s *Kernel) Redirect(c echo.Context, to string) error { return Redirect(c, to) }
