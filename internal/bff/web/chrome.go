package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/etag"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// Chrome builds the page frame's view model for this request.
func (k *Kernel) Chrome(c echo.Context, title string) layouts.Chrome {
	dev := DeviceOf(c)
	l := Loc(c)
	ch := layouts.Chrome{
		Lang:      l.Lang(),
		Languages: k.LanguageLinks(c),
		Title:     title,
		SiteName:  k.Cfg.SiteName,
		Mode:      string(dev.Mode),
		CSRFToken: CSRFToken(c),
		CSSPath:   k.Assets.Path("css/app.css"),
		HTMXPath:  k.Assets.Path("vendor/htmx-2.0.11.min.js"),
		JSPath:    k.Assets.Path("js/app.js"),
		IconPath:  k.Assets.Path("img/favicon.svg"),
		HomeURL:   k.URL(RouteHome),
	}
	current := c.Path()
	findLabel := l.T("nav.my_booking")
	if k.AtCounter(c) {
		findLabel = l.T("nav.counter_bookings") // staff find anyone's booking
	}
	for _, n := range []struct{ label, route string }{
		{l.T("nav.whats_on"), RouteWhatsOn},
		{findLabel, RouteFindBooking},
	} {
		ch.Nav = append(ch.Nav, layouts.Link{Label: n.label, URL: k.URL(n.route), Current: current == Paths[n.route]})
	}
	if name := k.StaffMember(c); name != "" {
		ch.StaffName, ch.SignOutURL = name, k.URL(RouteStaffSignOut)
		ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.needs_attention"), URL: k.URL(RouteStaffAttention), Current: current == Paths[RouteStaffAttention]})
		if k.IsSupervisor(c) {
			ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.audit"), URL: k.URL(RouteStaffAudit), Current: current == Paths[RouteStaffAudit]})
			ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.terminals"), URL: k.URL(RouteStaffDevices), Current: current == Paths[RouteStaffDevices]})
			ch.Nav = append(ch.Nav, layouts.Link{Label: l.T("nav.staff_accounts"), URL: k.URL(RouteStaffAccounts), Current: current == Paths[RouteStaffAccounts]})
		}
		if dev.Mode == device.Counter {
			ch.NextCustomerURL = k.URL(RouteNextCustomer)
			if k.CustomerStrip != nil {
				ch.Customer = k.CustomerStrip(c)
			}
		}
	}
	if dev.Mode == device.Kiosk {
		k.KioskChrome(c, &ch) // kiosk_chrome.go: its own nav, the idle timer, the refresh without JavaScript
	}
	return ch
}

// Render writes a page: the whole document normally, only the body component for an htmx
// request (see fragment). Vary tells caches the two differ. The page is rendered into a pooled
// buffer first and written in one go with its Content-Length: the compressor (compress.go) then
// sees the whole body at once instead of a flush per templ buffer, and a page that fails to
// render has sent nothing yet, so the error page can still answer.
func (k *Kernel) Render(c echo.Context, status int, title string, body templ.Component) error {
	if IsHTMX(c) {
		return k.Fragment(c, status, body)
	}
	h := c.Response().Header()
	h.Add("Vary", "HX-Request")
	h.Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	buf := getPageBuffer()
	defer putPageBuffer(buf)
	ctx := c.Request().Context()
	if err := layouts.Base(k.Chrome(c, title)).Render(templ.WithChildren(ctx, body), buf); err != nil {
		return fmt.Errorf("render page: %w", err)
	}
	return writeBody(c, status, buf.Bytes())
}

// Fragment writes an htmx fragment. A fragment answering a GET with 200 (a poller asking
// again) carries an ETag of its content and may be kept by the browser, privately, for
// revalidation only (no-cache instead of the site's no-store); when it has not changed the
// browser's If-None-Match gets a 304 without the body (http.ServeContent answers it).
// Fragments are rendered into a pooled buffer first, like pages.
func (k *Kernel) Fragment(c echo.Context, status int, body templ.Component) error {
	h := c.Response().Header()
	h.Add("Vary", "HX-Request")
	h.Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	ctx := c.Request().Context()
	buf := getPageBuffer()
	defer putPageBuffer(buf)
	if err := body.Render(ctx, buf); err != nil {
		return fmt.Errorf("render fragment: %w", err)
	}
	if c.Request().Method != http.MethodGet || status != http.StatusOK {
		return writeBody(c, status, buf.Bytes())
	}
	h.Set("ETag", etag.Of(buf.Bytes()))
	h.Set("Cache-Control", "no-cache, private")
	http.ServeContent(c.Response(), c.Request(), "", time.Time{}, bytes.NewReader(buf.Bytes()))
	return nil
}

// writeBody sends a rendered body with its status and Content-Length in one write.
func writeBody(c echo.Context, status int, b []byte) error {
	w := c.Response()
	w.Header().Set(echo.HeaderContentLength, strconv.Itoa(len(b)))
	w.WriteHeader(status)
	if c.Request().Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(b)
	return err
}

// pagePool holds the buffers pages and fragments are rendered into. A buffer grown past
// maxPooledPage (a very large page) is left to the garbage collector rather than kept.
var pagePool = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 32<<10)) }}

const maxPooledPage = 1 << 20

func getPageBuffer() *bytes.Buffer { return pagePool.Get().(*bytes.Buffer) }

func putPageBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooledPage {
		return
	}
	b.Reset()
	pagePool.Put(b)
}

// Redirect sends the browser on after a POST (Post/Redirect/Get). For htmx requests it uses
// HX-Redirect so the whole page changes, not a fragment.
func (k *Kernel) Redirect(c echo.Context, to string) error { return Redirect(c, to) }
