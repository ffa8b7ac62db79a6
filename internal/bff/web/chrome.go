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

	"github.com/cinemabff/cinemabff/internal/etag"
	"github.com/cinemabff/cinemabff/internal/gzjoin"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// ChromeHook adds an audience's part to the page frame: a signed-in staff member's
// navigation, a kiosk's own navigation and idle timer. The kernel calls every hook registered
// in Kernel.ChromeHooks, in order, after the part every visitor gets; it knows no audience.
type ChromeHook func(c echo.Context, ch *layouts.Chrome)

// Chrome builds the page frame's view model for this request: the part every visitor gets,
// then each audience's (ChromeHooks).
func (k *Kernel) Chrome(c echo.Context, title string) layouts.Chrome {
	dev := DeviceOf(c)
	l := Loc(c)
	ch := layouts.Chrome{
		Lang:       l.Lang(),
		Languages:  k.LanguageLinks(c),
		Title:      title,
		SiteName:   k.Cfg.SiteName,
		Mode:       string(dev.Mode),
		CSRFToken:  CSRFToken(c),
		CSSPath:    k.Assets.Path("css/app.css"),
		HTMXPath:   k.Assets.Path("vendor/htmx-2.0.11.min.js"),
		JSPath:     k.Assets.Path("js/app.js"),
		SpeechPath: k.Assets.Path("js/speech.js"),
		IconPath:   k.Assets.Path("img/favicon.svg"),
		HomeURL:    k.URL("home"),
	}
	current := c.Path()
	for _, n := range []struct{ label, route string }{
		{l.T("nav.whats_on"), "whatson"},
		{l.T("nav.my_booking"), "booking.find"},
	} {
		ch.Nav = append(ch.Nav, layouts.Link{Label: n.label, URL: k.URL(n.route), Current: current == k.Path(n.route)})
	}
	for _, hook := range k.ChromeHooks {
		hook(c, &ch)
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
	var shared gzjoin.Page
	gz := acceptsGzip(c.Request())
	if gz {
		ctx = gzjoin.With(ctx, &shared)
	}
	if err := layouts.Base(k.Chrome(c, title)).Render(templ.WithChildren(ctx, body), buf); err != nil {
		return fmt.Errorf("render page: %w", err)
	}
	if shared.Joined() || gz && buf.Len() >= compressMinSize {
		return writeJoined(c, status, &shared, buf.Bytes())
	}
	return writeBody(c, status, buf.Bytes())
}

// writeJoined sends a page gzipped by gzjoin, which copies the compressed bytes of the parts
// it holds (a seat map's rows) instead of compressing them again, whole and with its length
// in one write: Compressed's streaming writes cost a system call each. Compressed wraps the
// site and passes an answer that already has a Content-Encoding through.
func writeJoined(c echo.Context, status int, shared *gzjoin.Page, page []byte) error {
	gz := getPageBuffer()
	defer putPageBuffer(gz)
	if err := shared.Gzip(gz, page); err != nil {
		return fmt.Errorf("render page: %w", err)
	}
	c.Response().Header().Set(echo.HeaderContentEncoding, "gzip")
	return writeBody(c, status, gz.Bytes())
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

// Context keys of a page that must not start over by itself while it shows (an unattended
// device's idle reset): a payment in progress, or a page that is its own countdown.
const (
	ctxIdlePaused      = "idle_paused"
	ctxIdlePausedUntil = "idle_paused_until" // a time.Time: when a payment's pause ends
)

// PauseIdle keeps the page from starting over while it shows: for a page that is its own
// countdown (the idle warning).
func PauseIdle(c echo.Context) { c.Set(ctxIdlePaused, true) }

// PauseIdleUntil pauses the idle reset of a payment's page while the payment runs, until its
// own deadline at the latest: then the device starts over as after any idle time, and from
// then on the page does not pause it. The payment itself is settled without the page (the
// provider's events, the reconciler), so an unattended device never keeps a guest's booking on
// screen for the next one.
func PauseIdleUntil(c echo.Context, until time.Time) {
	if !time.Now().Before(until) {
		return
	}
	c.Set(ctxIdlePaused, true)
	c.Set(ctxIdlePausedUntil, until)
}

// IdlePaused reports whether this page pauses the idle reset, and until when (zero: for as
// long as it shows).
func IdlePaused(c echo.Context) (paused bool, until time.Time) {
	paused, _ = c.Get(ctxIdlePaused).(bool)
	until, _ = c.Get(ctxIdlePausedUntil).(time.Time)
	return paused, until
}
