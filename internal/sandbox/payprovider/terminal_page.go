package payprovider

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"
	"strings"
)

// The page of the simulated readers, GET /terminal: for a person trying the
// site, the card they would tap on a real reader. Plain HTML, styled like the
// hosted page (pageCSS, under the same CSP).

// The cards of the page's two buttons.
const (
	tapApprovedCard = "4242424242424242"
	tapDeclinedCard = "4000000000000002"
)

var terminalTmpl = template.Must(template.New("terminal").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Card readers – Sandbox payment</title>
<style>` + pageCSS + `</style>
</head>
<body>
<main>
<h1>Card readers</h1>
<p class="note" role="note"><strong>Test provider.</strong> These are simulated card readers: no card is charged and no real money moves.</p>
{{- with .Alert}}
<p class="alert" role="alert">{{.}}</p>
{{- end}}
{{- range .Readers}}
<section aria-labelledby="{{.ID}}">
<h2 id="{{.ID}}">{{.Label}}</h2>
<dl>
<dt>Reader</dt><dd>{{.ID}}</dd>
<dt>Location</dt><dd>{{.Location}}</dd>
<dt>Status</dt><dd>{{.Status}}</dd>
<dt>Payment</dt><dd>{{.Action}}</dd>
{{- with .Amount}}
<dt>Amount</dt><dd class="amount">{{.}}</dd>
{{- end}}
{{- with .Intent}}
<dt>Payment intent</dt><dd>{{.}}</dd>
{{- end}}
</dl>
{{- if .Tap}}
<div class="buttons">
<form method="post" action="{{.PresentURL}}">
<input type="hidden" name="number" value="` + tapApprovedCard + `">
<button type="submit" class="pay">Tap an approved card</button>
</form>
<form method="post" action="{{.PresentURL}}">
<input type="hidden" name="number" value="` + tapDeclinedCard + `">
<button type="submit">Tap a declined card</button>
</form>
</div>
{{- end}}
</section>
{{- else}}
<p>No reader is registered yet. A reader appears here once the service registers one (POST /v1/terminal/readers).</p>
{{- end}}
<p class="hint">The approved card is a Visa ending in 4242; the declined one ends in 0002 (generic decline). A reader shows the buttons while it waits for a card.</p>
<p><a href="{{.Self}}">Refresh</a></p>
</main>
</body>
</html>
`))

type terminalPageData struct {
	Alert   string
	Readers []readerRow
	Self    string
}

// readerRow is one reader on the page, in words.
type readerRow struct {
	ID, Label, Location, Status string
	Action, Amount, Intent      string
	Tap                         bool // an action is in progress: show the buttons
	PresentURL                  string
}

func (p *Provider) handleTerminal(w http.ResponseWriter, _ *http.Request) {
	p.renderTerminal(w, http.StatusOK, "")
}

// handleTerminalPresent is a button of the page: tap the card, then back to
// the page (303), or the page with what went wrong.
func (p *Provider) handleTerminalPresent(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		p.renderTerminal(w, http.StatusBadRequest, "The form could not be read.")
		return
	}
	id := r.PathValue("id")
	err := p.PresentPaymentMethod(id, r.PostForm.Get("number"))
	switch {
	case err == nil:
		seeOther(w, r, p.TerminalURL())
	case errors.Is(err, ErrReaderNotFound):
		p.renderTerminal(w, http.StatusNotFound, "There is no reader "+id+": it may have been deleted.")
	case errors.Is(err, ErrReaderOffline):
		p.renderTerminal(w, http.StatusConflict, "Reader "+id+" is offline: it cannot read a card.")
	case errors.Is(err, ErrNoReaderAction):
		p.renderTerminal(w, http.StatusConflict, "Reader "+id+" is not waiting for a card (the payment may have been cancelled or already taken).")
	default:
		p.renderTerminal(w, http.StatusBadRequest, strings.TrimPrefix(err.Error(), ErrInvalidRequest.Error()+": "))
	}
}

func (p *Provider) renderTerminal(w http.ResponseWriter, status int, alert string) {
	p.mu.Lock()
	d := terminalPageData{Alert: alert, Self: p.TerminalURL()}
	readers := p.readersLocked()
	for i := len(readers) - 1; i >= 0; i-- { // oldest first: a reader keeps its place
		d.Readers = append(d.Readers, p.readerRowLocked(readers[i]))
	}
	p.mu.Unlock()
	var buf bytes.Buffer
	if err := terminalTmpl.Execute(&buf, d); err != nil {
		http.Error(w, "page rendering failed", http.StatusInternalServerError)
		return
	}
	writeHTML(w, status, buf.Bytes(), []string{origin(p.publicURL)})
}

// readerRowLocked describes a reader for the page.
func (p *Provider) readerRowLocked(r *TerminalReader) readerRow {
	row := readerRow{ID: r.ID, Label: r.Label, Location: r.LocationID, Status: r.Status,
		Action: "Idle: no payment", PresentURL: p.TerminalURL() + "/" + r.ID + "/present"}
	if row.Label == "" {
		row.Label = r.ID
	}
	if l := p.locations[r.LocationID]; l != nil {
		row.Location = l.DisplayName + " (" + l.ID + ")"
	}
	a := r.Action
	if a == nil {
		return row
	}
	row.Amount, row.Intent = formatAmount(a.Amount, strings.ToUpper(a.Currency)), a.PaymentIntentID
	switch a.Status {
	case ActionInProgress:
		row.Action, row.Tap = "Waiting for a card", r.Status == ReaderOnline
		if !row.Tap {
			row.Action += " (the reader is offline)"
		}
	case ActionSucceeded:
		row.Action = "Approved: the last payment was taken"
	case ActionFailed:
		row.Action = "Declined: " + a.FailureMessage
	}
	return row
}
