package upstream

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// ListCinemas lists the cinemas and remembers each one's currency for the
// amounts of later calls.
func (c *Client) ListCinemas(ctx context.Context) ([]cinema.Cinema, error) {
	w, err := call[wireCinemaList](ctx, c.t, c.base, request{op: OpListCinemas, method: http.MethodGet, path: "/OData.svc/Cinemas", read: true})
	if err != nil {
		return nil, err
	}
	out := make([]cinema.Cinema, 0, len(w.Value))
	for _, ci := range w.Value {
		c.learnCurrency(ci.ID, ci.CurrencyCode)
		out = append(out, cinema.Cinema{ID: ci.ID, Name: ci.Name, Currency: ci.CurrencyCode, Locale: ci.Locale, TimeZone: ci.TimeZone})
	}
	return out, nil
}

// ListFilms lists the films scheduled at a cinema.
func (c *Client) ListFilms(ctx context.Context, cinemaID string) ([]cinema.Film, error) {
	w, err := call[wireFilmList](ctx, c.t, c.base, request{op: OpListFilms, method: http.MethodGet, path: "/OData.svc/Films",
		query: url.Values{"cinemaId": {cinemaID}}, read: true})
	if err != nil {
		return nil, err
	}
	out := make([]cinema.Film, 0, len(w.Value))
	for _, f := range w.Value {
		out = append(out, cinema.Film{ID: f.ID, Title: f.Title, Rating: f.Rating, RunTime: time.Duration(f.RunTime) * time.Minute, Synopsis: f.Synopsis})
	}
	return out, nil
}

// ListSessions lists a cinema's sessions; day ("YYYY-MM-DD" in the cinema's
// time zone) narrows them to one day, "" lists all.
func (c *Client) ListSessions(ctx context.Context, cinemaID, day string) ([]cinema.Session, error) {
	q := url.Values{"cinemaId": {cinemaID}}
	if day != "" {
		q.Set("date", day)
	}
	w, err := call[wireSessionList](ctx, c.t, c.base, request{op: OpListSessions, method: http.MethodGet, path: "/OData.svc/Sessions", query: q, read: true})
	if err != nil {
		return nil, err
	}
	out := make([]cinema.Session, 0, len(w.Value))
	for _, s := range w.Value {
		out = append(out, sessionFromWire(s))
	}
	return out, nil
}

// GetSeatPlan reads the seat plan of a session with the state of every seat.
func (c *Client) GetSeatPlan(ctx context.Context, cinemaID, sessionID string) (cinema.SeatPlan, error) {
	path := "/RESTData.svc/cinemas/" + escape(cinemaID) + "/sessions/" + escape(sessionID) + "/seat-plan"
	w, err := call[wireSeatPlanResponse](ctx, c.t, c.base, request{op: OpGetSeatPlan, method: http.MethodGet, path: path, read: true})
	if err != nil {
		return cinema.SeatPlan{}, err
	}
	return c.conv().seatPlan(w.SeatLayoutData, cinemaID, sessionID), nil
}

// GetTicketTypes lists the ticket types and prices of a session; a non-empty
// userSessionID prices them for that order (e.g. an edit).
func (c *Client) GetTicketTypes(ctx context.Context, cinemaID, sessionID, userSessionID string) ([]cinema.TicketType, error) {
	path := "/RESTData.svc/cinemas/" + escape(cinemaID) + "/sessions/" + escape(sessionID) + "/tickets"
	var q url.Values
	if userSessionID != "" {
		q = url.Values{"userSessionId": {userSessionID}}
	}
	w, err := call[wireTicketTypesResponse](ctx, c.t, c.base, request{op: OpGetTicketTypes, method: http.MethodGet, path: path, query: q, read: true})
	if err != nil {
		return nil, err
	}
	return c.conv().ticketTypes(w.Tickets, cinemaID), nil
}
