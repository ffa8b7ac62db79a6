package bfftest

import (
	"net/http"
	"net/url"
)

// Forms as a browser sends them: with the CSRF token of the page they are on.

// CSRFToken scrapes the CSRF token from a page's form.
func (h *Harness) CSRFToken(path string) string {
	h.T.Helper()
	_, body := h.Get(path)
	doc := h.Doc(body)
	tok, ok := doc.Find(`input[name="_csrf"]`).First().Attr("value")
	if !ok || tok == "" {
		h.T.Fatalf("no CSRF token on %s", path)
	}
	return tok
}

// Post submits a form with the CSRF token scraped from tokenPage.
func (h *Harness) Post(path, tokenPage string, form url.Values) (*http.Response, string) {
	h.T.Helper()
	return h.PostToken(path, h.CSRFToken(tokenPage), form)
}

// PostToken submits a form with a CSRF token read before: the form as it stood on a page the
// visit has since left (reading a page again can change what it shows).
func (h *Harness) PostToken(path, token string, form url.Values) (*http.Response, string) {
	h.T.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("_csrf", token)
	return h.Do("POST", path, form, nil)
}
