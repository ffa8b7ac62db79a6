package web

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// Routes is the one table of route names and their path patterns ("/booking/edit/payment/:entry").
// Every address of the site is built from it by name, never by string concatenation; each flow
// keeps its part of the table beside its handlers, and the site merges them.
type Routes map[string]string

// MergeRoutes puts the flows' parts of the table together.
func MergeRoutes(parts ...map[string]string) Routes {
	out := Routes{}
	for _, p := range parts {
		for k, v := range p {
			out[k] = v
		}
	}
	return out
}

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

// Register adds a handler under a named route of the site's table, behind its guards: what a
// flow's Routes is given to mount itself with.
type Register func(method, name string, h echo.HandlerFunc, m ...echo.MiddlewareFunc)

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
