package payprovider

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// pageCSS is the only style of the hosted page; its hash goes into the CSP.
const pageCSS = `
:root { color-scheme: light; }
body { margin: 0; font: 1.125rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a1a1a; background: #f4f4f6; }
main { max-width: 32rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border: 1px solid #c8c8d0; border-radius: 8px; }
h1 { margin-top: 0; font-size: 1.6rem; }
.note { padding: .75rem 1rem; background: #fff4ce; border: 1px solid #8a6d00; border-radius: 4px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
.amount { font-size: 1.4rem; font-weight: 700; }
.buttons { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1.5rem; }
button { min-width: 7rem; min-height: 44px; padding: .5rem 1.25rem; font: inherit; font-weight: 600; border-radius: 6px; border: 2px solid #1a1a1a; background: #fff; color: #1a1a1a; cursor: pointer; }
button.pay { background: #0b5d1e; border-color: #0b5d1e; color: #fff; }
button:focus-visible, a:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 3px; }
a { color: #1d4ed8; }
`

var (
	styleHash = func() string {
		sum := sha256.Sum256([]byte(pageCSS))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}()

	pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>` + pageCSS + `</style>
</head>
<body>
<main>
<h1>{{.Heading}}</h1>
<p class="note" role="note"><strong>Test provider.</strong> This is a sandbox payment page: no card is charged and no real money moves.</p>
{{- with .Message}}
<p role="status">{{.}}</p>
{{- end}}
{{- if .Amount}}
<dl>
<dt>Merchant reference</dt><dd>{{.Reference}}</dd>
{{- with .Description}}
<dt>Description</dt><dd>{{.}}</dd>
{{- end}}
<dt>Amount</dt><dd class="amount">{{.Amount}}</dd>
{{- if .Pending}}
<dt>Test card</dt><dd>VISA ending in 4242</dd>
{{- end}}
</dl>
{{- end}}
{{- if .Pending}}
<form method="post" action="{{.Action}}">
<div class="buttons">
<button type="submit" name="action" value="pay" class="pay">Pay</button>
<button type="submit" name="action" value="decline">Decline</button>
<button type="submit" name="action" value="cancel">Cancel</button>
</div>
</form>
{{- end}}
{{- with .Link}}
<p><a href="{{.}}">{{$.LinkText}}</a></p>
{{- end}}
</main>
</body>
</html>
`))
)

type pageData struct {
	Title, Heading, Message string
	Reference, Description  string
	Amount                  string
	Pending                 bool
	Action                  string
	Link                    string
	LinkText                string
	formOrigin              string // extra form-action source, for the redirect
}

var actions = map[string]Status{
	"pay":     StatusPaid,
	"decline": StatusDeclined,
	"cancel":  StatusCancelled,
}

func (p *Provider) handleCheckout(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		pay, ok := p.Get(id)
		if !ok {
			renderNotFound(w)
			return
		}
		renderPage(w, http.StatusOK, paymentPage(pay))
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if err := r.ParseForm(); err != nil {
			renderPage(w, http.StatusBadRequest, pageData{Title: "Bad request – Sandbox payment", Heading: "Sandbox payment", Message: "The form could not be read."})
			return
		}
		pay, ok := p.Get(id)
		if !ok {
			renderNotFound(w)
			return
		}
		to, ok := actions[r.PostForm.Get("action")]
		if !ok {
			renderPage(w, http.StatusBadRequest, pageData{
				Title: "Bad request – Sandbox payment", Heading: "Sandbox payment",
				Message: "Unknown action: choose Pay, Decline or Cancel.",
				Link:    id, LinkText: "Back to the payment",
			})
			return
		}
		pay, _ = p.decide(id, to)
		target := returnTarget(pay)
		if target == "" { // seeded payments have no return URL
			renderPage(w, http.StatusOK, paymentPage(pay))
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		http.Redirect(w, r, target, http.StatusSeeOther)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		renderPage(w, http.StatusMethodNotAllowed, pageData{Title: "Method not allowed – Sandbox payment", Heading: "Sandbox payment", Message: "Method not allowed."})
	}
}

func paymentPage(pay Payment) pageData {
	d := pageData{
		Title:       "Sandbox payment",
		Heading:     "Sandbox payment",
		Reference:   pay.Reference,
		Description: pay.Description,
		Amount:      formatAmount(pay.AmountInCents, pay.Currency),
		Pending:     pay.Status == StatusPending,
		Action:      pay.ID, // relative: resolves to this page's own address
		formOrigin:  origin(pay.ReturnURL),
	}
	if d.Reference == "" {
		d.Reference = "(none)"
	}
	if !d.Pending {
		d.Message = "This payment is " + strings.ReplaceAll(string(pay.Status), "_", " ") + "."
		if t := returnTarget(pay); t != "" {
			d.Link, d.LinkText = t, "Return to the merchant"
		}
	}
	return d
}

func renderNotFound(w http.ResponseWriter) {
	renderPage(w, http.StatusNotFound, pageData{
		Title: "Payment not found – Sandbox payment", Heading: "Payment not found",
		Message: "There is no payment at this address. It may have been mistyped.",
	})
}

func renderPage(w http.ResponseWriter, status int, d pageData) {
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, d); err != nil {
		http.Error(w, "page rendering failed", http.StatusInternalServerError)
		return
	}
	formAction := "'self'"
	if d.formOrigin != "" {
		formAction += " " + d.formOrigin
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src "+styleHash+
		"; form-action "+formAction+"; base-uri 'none'; frame-ancestors 'none'")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// returnTarget is the payment's return URL with token and status appended to
// its query, or "" without a usable return URL.
func returnTarget(pay Payment) string {
	if pay.ReturnURL == "" {
		return ""
	}
	u, err := url.Parse(pay.ReturnURL)
	if err != nil {
		return ""
	}
	add := "token=" + url.QueryEscape(pay.Token) + "&status=" + url.QueryEscape(string(pay.Status))
	if u.RawQuery != "" {
		u.RawQuery += "&" + add
	} else {
		u.RawQuery = add
	}
	return u.String()
}

// origin is the CSP source for a URL's origin, or "" if it cannot be one.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	for _, c := range u.Host {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-:[]", c)) {
			return ""
		}
	}
	return u.Scheme + "://" + u.Host
}

// formatAmount formats minor units with the currency, e.g. "€1,234.50".
func formatAmount(cents int64, currency string) string {
	digits := 2
	switch currency {
	case "JPY", "KRW", "ISK", "CLP", "VND", "XOF", "XAF", "UGX", "PYG":
		digits = 0
	case "BHD", "KWD", "OMR", "JOD", "TND", "IQD", "LYD":
		digits = 3
	}
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	s := strconv.FormatInt(cents, 10)
	for len(s) <= digits {
		s = "0" + s
	}
	whole, frac := s[:len(s)-digits], s[len(s)-digits:]
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	num := b.String()
	if digits > 0 {
		num += "." + frac
	}
	switch currency {
	case "EUR":
		return sign + "€" + num
	case "GBP":
		return sign + "£" + num
	case "USD":
		return sign + "US$" + num
	}
	return sign + currency + " " + num
}
