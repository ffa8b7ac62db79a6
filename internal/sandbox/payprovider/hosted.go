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
label { font-weight: 600; }
input { box-sizing: border-box; width: 100%; max-width: 22rem; min-height: 44px; padding: .5rem .75rem; font: inherit; border: 2px solid #555; border-radius: 6px; }
input:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.hint { font-size: 1rem; color: #3a3a3a; }
.alert { padding: .75rem 1rem; background: #fde8e8; border: 1px solid #9b1c1c; border-radius: 4px; color: #7a1010; font-weight: 600; }
button:focus-visible, a:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 3px; }
a { color: #1d4ed8; }
h2 { font-size: 1.3rem; margin-bottom: .5rem; }
section + section { border-top: 1px solid #c8c8d0; margin-top: 1.5rem; padding-top: .5rem; }
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
{{- with .Alert}}
<p class="alert" role="alert">{{.}}</p>
{{- end}}
{{- with .Message}}
<p role="status">{{.}}</p>
{{- end}}
{{- if .Amount}}
<dl>
<dt>Merchant reference</dt><dd>{{.Reference}}</dd>
{{- with .Description}}
<dt>Description</dt><dd>{{.}}</dd>
{{- end}}
{{- range .Items}}
<dt>Item</dt><dd>{{.}}</dd>
{{- end}}
<dt>Amount</dt><dd class="amount">{{.Amount}}</dd>
{{- if and .Pending (not .CardField)}}
<dt>Test card</dt><dd>VISA ending in 4242</dd>
{{- end}}
</dl>
{{- end}}
{{- if .Pending}}
<form method="post" action="{{.Action}}">
{{- if .CardField}}
<p><label for="card">Card number</label><br>
<input id="card" name="card" value="{{.CardValue}}" inputmode="numeric" autocomplete="cc-number" aria-describedby="cards"></p>
<p id="cards" class="hint">Test cards: 4242 4242 4242 4242 (Visa) and 5555 5555 5555 4444 (Mastercard) pay;
4000 0000 0000 0002 is declined; 4000 0000 0000 9995 has insufficient funds. Decline pays with a declined card.</p>
{{- end}}
<div class="buttons">
<button type="submit" name="action" value="pay" class="pay">Pay</button>
<button type="submit" name="action" value="decline">Decline</button>
{{- if .ShowCancel}}
<button type="submit" name="action" value="cancel">Cancel</button>
{{- end}}
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
	Alert                   string
	Reference, Description  string
	Items                   []string
	Amount                  string
	Pending                 bool
	CardField               bool
	CardValue               string
	ShowCancel              bool
	Action                  string
	Link                    string
	LinkText                string
	formOrigins             []string // extra form-action sources, for the redirects
}

var actions = map[string]Status{
	"pay":     StatusPaid,
	"decline": StatusDeclined,
	"cancel":  StatusCancelled,
}

// defaultCard prefills the card field of a Checkout Session's page.
const defaultCard = "4242 4242 4242 4242"

// declinedCard is what the Decline button pays with.
const declinedCard = "4000 0000 0000 0002"

func (p *Provider) handleCheckout(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		renderPage(w, http.StatusMethodNotAllowed, pageData{Title: "Method not allowed – Sandbox payment", Heading: "Sandbox payment", Message: "Method not allowed."})
		return
	}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if err := r.ParseForm(); err != nil {
			renderPage(w, http.StatusBadRequest, pageData{Title: "Bad request – Sandbox payment", Heading: "Sandbox payment", Message: "The form could not be read."})
			return
		}
	}
	if strings.HasPrefix(id, "cs_") {
		p.handleSessionPage(w, r, id)
		return
	}
	pay, ok := p.Get(id)
	if !ok || pay.Token == "" { // only connector payments have a page of their own
		renderNotFound(w)
		return
	}
	if r.Method != http.MethodPost {
		renderPage(w, http.StatusOK, paymentPage(pay))
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
	if target == "" {
		renderPage(w, http.StatusOK, paymentPage(pay))
		return
	}
	seeOther(w, r, target)
}

func seeOther(w http.ResponseWriter, r *http.Request, target string) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// handleSessionPage is the hosted page of a Checkout Session: Pay with the
// card number in the form, Decline (a declined test card), Cancel (back to
// cancel_url; the session stays open, as with Stripe).
func (p *Provider) handleSessionPage(w http.ResponseWriter, r *http.Request, id string) {
	p.mu.Lock()
	p.sweepLocked()
	s := p.sessions[id]
	if s == nil {
		p.mu.Unlock()
		renderNotFound(w)
		return
	}
	if r.Method != http.MethodPost {
		d := sessionPage(s, "", defaultCard)
		p.mu.Unlock()
		renderPage(w, http.StatusOK, d)
		return
	}
	action := r.PostForm.Get("action")
	switch {
	case s.Status == SessionComplete:
		target := withSessionID(s.SuccessURL, s.ID)
		p.mu.Unlock()
		seeOther(w, r, target)
		return
	case s.Status != SessionOpen:
		d := sessionPage(s, "", "")
		p.mu.Unlock()
		renderPage(w, http.StatusOK, d)
		return
	}
	number := r.PostForm.Get("card")
	switch action {
	case "pay", "decline":
		if action == "decline" {
			number = declinedCard
		} else if strings.TrimSpace(number) == "" {
			number = defaultCard
		}
		res := p.paySessionLocked(s, number)
		if res.redirect != "" {
			p.mu.Unlock()
			seeOther(w, r, res.redirect)
			return
		}
		alert := res.invalid
		if res.declined != nil {
			alert = res.declined.message + " Try another card."
		}
		d := sessionPage(s, alert, number)
		p.mu.Unlock()
		renderPage(w, http.StatusOK, d)
	case "cancel":
		target := withSessionID(s.CancelURL, s.ID)
		if s.CancelURL == "" {
			d := sessionPage(s, "This checkout has no way back to the merchant: close this page.", defaultCard)
			p.mu.Unlock()
			renderPage(w, http.StatusOK, d)
			return
		}
		p.mu.Unlock()
		seeOther(w, r, target)
	default:
		d := sessionPage(s, "Unknown action: choose Pay, Decline or Cancel.", defaultCard)
		p.mu.Unlock()
		renderPage(w, http.StatusBadRequest, d)
	}
}

// sessionPage is the page of a session; p.mu must be held.
func sessionPage(s *CheckoutSession, alert, card string) pageData {
	cur := strings.ToUpper(s.Currency)
	d := pageData{
		Title: "Sandbox payment", Heading: "Sandbox payment", Alert: alert,
		Reference: s.ClientReferenceID, Amount: formatAmount(s.AmountTotal, cur),
		Pending: s.Status == SessionOpen, CardField: true, CardValue: card, ShowCancel: s.CancelURL != "",
		Action: s.ID, formOrigins: []string{origin(withSessionID(s.SuccessURL, s.ID)), origin(withSessionID(s.CancelURL, s.ID))},
	}
	if d.Reference == "" {
		d.Reference = "(none)"
	}
	for _, it := range s.LineItems {
		line := it.Name
		if it.Quantity != 1 {
			line += " × " + strconv.FormatInt(it.Quantity, 10)
		}
		d.Items = append(d.Items, line+": "+formatAmount(it.UnitAmount*it.Quantity, cur))
	}
	switch s.Status {
	case SessionComplete:
		d.Message = "This payment is complete."
		d.Link, d.LinkText = withSessionID(s.SuccessURL, s.ID), "Return to the merchant"
	case SessionExpired:
		d.Message = "This checkout session has expired."
	}
	return d
}

func paymentPage(pay Payment) pageData {
	d := pageData{
		Title:       "Sandbox payment",
		Heading:     "Sandbox payment",
		Reference:   pay.Reference,
		Description: pay.Description,
		Amount:      formatAmount(pay.AmountInCents, pay.Currency),
		Pending:     pay.Status == StatusPending,
		ShowCancel:  true,
		Action:      pay.ID, // relative: resolves to this page's own address
		formOrigins: []string{origin(pay.ReturnURL)},
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
	writeHTML(w, status, buf.Bytes(), d.formOrigins)
}

// writeHTML answers a page styled with pageCSS only, with the headers that
// lock it down; its forms may post to itself and to formOrigins.
func writeHTML(w http.ResponseWriter, status int, page []byte, formOrigins []string) {
	formAction := "'self'"
	seen := map[string]bool{}
	for _, o := range formOrigins {
		if o != "" && !seen[o] {
			seen[o] = true
			formAction += " " + o
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src "+styleHash+
		"; form-action "+formAction+"; base-uri 'none'; frame-ancestors 'none'")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(status)
	_, _ = w.Write(page)
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
