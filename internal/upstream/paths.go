package upstream

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
)

// Route is how one operation is reached: an HTTP method and a path template
// below the base URL. The template may carry a query ("?name=value") and the
// placeholders {cinemaId}, {sessionId}, {bookingId} and {userSessionId}.
type Route struct {
	Method string
	Path   string
}

// String is the route as written in a paths file: "POST RESTTicketing.svc/order".
func (r Route) String() string { return r.Method + " " + r.Path }

// Paths maps operation names (OpAddTickets, …) to their routes.
type Paths map[string]Route

// DefaultPaths is the wire profile's table (docs/wire-profile.md, "Paths"):
// the real paths where public clients show them, ours elsewhere.
func DefaultPaths() Paths {
	return Paths{
		OpListCinemas:               {http.MethodGet, "OData.svc/Cinemas"},
		OpListFilms:                 {http.MethodGet, "OData.svc/ScheduledFilms?$filter=CinemaId eq '{cinemaId}'"},
		OpListSessions:              {http.MethodGet, "OData.svc/Sessions?$filter=CinemaId eq '{cinemaId}'"},
		OpGetSeatPlan:               {http.MethodGet, "RESTData.svc/cinemas/{cinemaId}/sessions/{sessionId}/seat-plan"},
		OpGetTicketTypes:            {http.MethodGet, "RESTData.svc/cinemas/{cinemaId}/sessions/{sessionId}/tickets"},
		OpAddTickets:                {http.MethodPost, "RESTTicketing.svc/order/tickets"},
		OpRemoveTickets:             {http.MethodPost, "RESTTicketing.svc/order/tickets/remove"},
		OpSetSelectedSeats:          {http.MethodPost, "RESTTicketing.svc/order/seats"},
		OpGetOrder:                  {http.MethodPost, "RESTTicketing.svc/order"},
		OpResetOrderExpiry:          {http.MethodPost, "RESTTicketing.svc/order/reset-expiry"},
		OpCancelOrder:               {http.MethodPost, "RESTTicketing.svc/order/cancel"},
		OpCompleteOrder:             {http.MethodPost, "RESTTicketing.svc/order/payment"},
		OpApplyGiftCard:             {http.MethodPost, "RESTTicketing.svc/order/giftcard"},
		OpApplyLoyaltyPointsPayment: {http.MethodPost, "RESTTicketing.svc/order/loyalty-points"},
		OpExternalPaymentStarting:   {http.MethodPost, "RESTTicketing.svc/order/startexternalpayment"},
		OpGetOrderDetails:           {http.MethodGet, "RESTTicketing.svc/order/details?userSessionId={userSessionId}"},
		OpGetSingleBooking:          {http.MethodPost, "RESTBooking.svc/booking"},
		OpEditBooking:               {http.MethodPost, "cinemas/{cinemaId}/bookings/{bookingId}/edit"},
		OpCompleteEditBooking:       {http.MethodPost, "orders/{userSessionId}/complete-edit"},
		OpSwapSeats:                 {http.MethodPost, "cinemas/{cinemaId}/bookings/{bookingId}/swap-seats"},
		OpMarkBookingCollected:      {http.MethodPost, "RESTBooking.svc/booking/collected"},
	}
}

// LoadPaths reads a paths file: a JSON object of operation name to
// "METHOD path" (see ParsePaths).
func LoadPaths(file string) (Paths, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("upstream paths: %w", err)
	}
	p, err := ParsePaths(b)
	if err != nil {
		return nil, fmt.Errorf("upstream paths %s: %w", file, err)
	}
	return p, nil
}

// ParsePaths reads {"RemoveTickets":"POST RESTTicketing.svc/order/tickets/remove", …}.
// Every name must be a known operation and every route a method and a path.
func ParsePaths(b []byte) (Paths, error) {
	var raw map[string]string
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("not a JSON object of operation to \"METHOD path\": %w", err)
	}
	known := DefaultPaths()
	out := Paths{}
	for _, op := range slices.Sorted(maps.Keys(raw)) {
		if _, ok := known[op]; !ok {
			return nil, fmt.Errorf("unknown operation %q (known: %s)", op, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
		r, err := ParseRoute(raw[op])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		out[op] = r
	}
	return out, nil
}

// ParseRoute reads one route as a paths file writes it: "POST RESTBooking.svc/booking/collected".
func ParseRoute(s string) (Route, error) {
	method, path, ok := strings.Cut(strings.TrimSpace(s), " ")
	method, path = strings.ToUpper(method), strings.TrimLeft(strings.TrimSpace(path), "/")
	if !ok || path == "" || (method != http.MethodGet && method != http.MethodPost) {
		return Route{}, fmt.Errorf("%q: want \"GET path\" or \"POST path\"", s)
	}
	if _, err := url.Parse(expandTemplate(path, nil)); err != nil {
		return Route{}, fmt.Errorf("%q: %w", s, err)
	}
	return Route{Method: method, Path: path}, nil
}

// merged returns the defaults with p's rows over them.
func (p Paths) merged() Paths {
	out := DefaultPaths()
	maps.Copy(out, p)
	return out
}

// routeParams are the values of a route's placeholders.
type routeParams map[string]string

// target builds the escaped path (starting with "/") and the raw query of op.
// Placeholders are path-escaped in the path; in the query they are
// query-escaped, with a quote doubled as OData string literals need.
func (p Paths) target(op string, params routeParams) (method, path, rawQuery string, err error) {
	r, ok := p[op]
	if !ok {
		return "", "", "", fmt.Errorf("upstream: no route for %s", op)
	}
	pathT, queryT, _ := strings.Cut(r.Path, "?")
	path = "/" + expandTemplate(pathT, func(v string) string { return url.PathEscape(v) }, params)
	if queryT != "" {
		var parts []string
		for _, kv := range strings.Split(queryT, "&") {
			k, v, _ := strings.Cut(kv, "=")
			v = expandTemplate(v, func(s string) string { return strings.ReplaceAll(s, "'", "''") }, params)
			parts = append(parts, queryEscape(k)+"="+queryEscape(v))
		}
		rawQuery = strings.Join(parts, "&")
	}
	return r.Method, path, rawQuery, nil
}

// queryEscape escapes a query key or value with %20 for spaces (OData
// services are not all sure of "+") and keeps OData's "$" and quotes readable.
func queryEscape(s string) string {
	e := url.QueryEscape(s)
	e = strings.ReplaceAll(e, "+", "%20")
	e = strings.ReplaceAll(e, "%24", "$")
	return strings.ReplaceAll(e, "%27", "'")
}

// expandTemplate replaces {name} placeholders with esc(params[name]). With
// no esc it replaces them with a harmless word, to validate a template.
func expandTemplate(t string, esc func(string) string, params ...routeParams) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			b.WriteString(t)
			return b.String()
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			b.WriteString(t)
			return b.String()
		}
		b.WriteString(t[:i])
		name := t[i+1 : i+j]
		if esc == nil || len(params) == 0 {
			b.WriteString("x")
		} else {
			b.WriteString(esc(params[0][name]))
		}
		t = t[i+j+1:]
	}
}

// Operation finds the operation whose route matches a request's method and
// path (below the base URL); "" when none does. Placeholders match one path
// segment. Test doubles of the ticketing API use it to know what was asked.
func (p Paths) Operation(method, path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for op, r := range p {
		tmpl, _, _ := strings.Cut(r.Path, "?")
		ts := strings.Split(tmpl, "/")
		if r.Method != method || len(ts) != len(segs) {
			continue
		}
		match := true
		for i := range ts {
			if !strings.HasPrefix(ts[i], "{") && ts[i] != segs[i] {
				match = false
				break
			}
		}
		if match {
			return op
		}
	}
	return ""
}
