package web

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"runtime"
	"strings"

	"github.com/labstack/echo/v4"
)

// Routes maps each route's name to its path pattern ("/booking/edit/payment/:entry"). It is
// filled as the flows register their routes (Router), each on the line that names its handler;
// every address of the site is built from it by name, never by string concatenation.
type Routes map[string]string

// URL builds the path of the route called name, filling its :params in order and escaping
// them. ok is false for an unknown name (a programming error the route tests catch); the path
// is then "/".
func (r Routes) URL(name string, params ...any) (path string, ok bool) {
	p, ok := r[name]
	if !ok {
		return "/", false
	}
	segs := strings.Split(p, "/")
	i := 0
	for j, seg := range segs {
		if strings.HasPrefix(seg, ":") && i < len(params) {
			segs[j] = url.PathEscape(fmt.Sprint(params[i]))
			i++
		}
	}
	return strings.Join(segs, "/"), true
}

// Path is URL for code that has a logger at hand: an unknown name is logged as the programming
// error it is, and the path is "/".
func (r Routes) Path(log *slog.Logger, name string, params ...any) string {
	p, ok := r.URL(name, params...)
	if !ok {
		log.Error("unknown route name", "name", name)
	}
	return p
}

// Router mounts routes on the site, one line per route: its method, path pattern, handler,
// name (for building its URL) and guards, so that searching for a URL finds its handler.
type Router struct {
	echo   *echo.Echo
	routes Routes
	log    *slog.Logger
	added  *[]Route
}

// Route is one registered route: what Router.Add was given, the handler by its function's name
// (for the test that a route's line names its handler).
type Route struct {
	Method, Path, Name, Handler string
}

// GET registers h for GET requests to path, under name, behind guards.
func (r Router) GET(path string, h echo.HandlerFunc, name string, guards ...echo.MiddlewareFunc) {
	r.Add(http.MethodGet, path, h, name, guards...)
}

// POST registers h for POST requests to path, under name, behind guards.
func (r Router) POST(path string, h echo.HandlerFunc, name string, guards ...echo.MiddlewareFunc) {
	r.Add(http.MethodPost, path, h, name, guards...)
}

// Add registers h for method requests to path, under name, behind guards. A name stands for
// one path: giving it a second one is a programming error, logged, and the route is not added.
func (r Router) Add(method, path string, h echo.HandlerFunc, name string, guards ...echo.MiddlewareFunc) {
	if p, ok := r.routes[name]; ok && p != path {
		r.log.Error("route name used for two paths", "name", name, "path", p, "again", path)
		return
	}
	r.routes[name] = path
	r.echo.Add(method, path, h, guards...).Name = name + "." + method
	*r.added = append(*r.added, Route{Method: method, Path: path, Name: name, Handler: runtime.FuncForPC(reflect.ValueOf(h).Pointer()).Name()})
}

// Redirect sends the browser to to after a form (303 See Other, so a refresh never posts
// again); an htmx request gets HX-Redirect instead, so htmx loads the whole page. A part of
// a page updated in place (an htmx request with a target) that is sent back to the page it
// is on gets the 303 too: htmx follows it and swaps that part from the page.
func Redirect(c echo.Context, to string) error {
	h := c.Request().Header
	if h.Get("HX-Request") == "true" && !(h.Get("HX-Target") != "" && samePath(h.Get("HX-Current-URL"), to)) {
		c.Response().Header().Set("HX-Redirect", to)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// samePath reports whether the page at current (a full URL) has the path of to.
func samePath(current, to string) bool {
	cu, err := url.Parse(current)
	if err != nil || current == "" {
		return false
	}
	tu, err := url.Parse(to)
	return err == nil && tu.Path != "" && cu.Path == tu.Path
}
