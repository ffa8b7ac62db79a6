package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// ListCinemas lists the cinemas and remembers each one's currency and time
// zone for the amounts and times of later calls.
func (c *Client) ListCinemas(ctx context.Context) ([]cinema.Cinema, error) {
	w, err := do[wireCinemaList](ctx, c, OpListCinemas, nil, nil, true, nil)
	if err != nil {
		return nil, err
	}
	out := make([]cinema.Cinema, 0, len(w.Value))
	for _, ci := range w.Value {
		zone := ci.TimeZoneId
		if zone == "" {
			zone = ci.TimeZone
		}
		loc, known := zoneLocation(zone)
		if !known {
			if zone != "" {
				c.cfg.logger.Warn("cinema time zone not understood; using the configured zone",
					"cinema", string(ci.ID), "TimeZoneId", zone, "zone", c.cfg.location.String())
			}
			loc = c.cfg.location
		}
		cur := ci.CurrencyCode
		if cur == "" {
			cur = c.cfg.currency
		}
		c.learnCinema(string(ci.ID), cur, loc)
		out = append(out, cinema.Cinema{ID: string(ci.ID), Name: ci.Name, Currency: cur, Locale: ci.Locale, TimeZone: loc.String()})
	}
	return out, nil
}

// ListFilms lists the films scheduled at a cinema (OData ScheduledFilms,
// filtered on the server).
func (c *Client) ListFilms(ctx context.Context, cinemaID string) ([]cinema.Film, error) {
	w, err := do[wireFilmList](ctx, c, OpListFilms, routeParams{"cinemaId": cinemaID}, nil, true, nil)
	if err != nil {
		return nil, err
	}
	out := make([]cinema.Film, 0, len(w.Value))
	for _, f := range w.Value {
		if f.CinemaId != "" && string(f.CinemaId) != cinemaID {
			continue // a server that ignored the filter
		}
		id := string(f.ScheduledFilmId)
		if id == "" {
			id = SplitSessionID(cinemaID, string(f.ID))
		}
		out = append(out, cinema.Film{ID: id, Title: f.Title, Rating: f.Rating, RunTime: time.Duration(f.RunTime) * time.Minute, Synopsis: f.Synopsis})
	}
	return out, nil
}

// ListSessions lists a cinema's sessions with their film titles; day
// ("YYYY-MM-DD", the cinema's business day) narrows them to one day, ""
// lists all. The listing is filtered by cinema on the server and by day
// here: the real service knows no date parameter. Show times are the
// cinema's local times, read in its zone.
func (c *Client) ListSessions(ctx context.Context, cinemaID, day string) ([]cinema.Session, error) {
	sessions, _, filmsErr, err := c.listSessions(ctx, cinemaID, day)
	if filmsErr != nil && !errors.Is(filmsErr, ErrNotFound) {
		c.cfg.logger.Warn("films of the session listing could not be read", "cinema", cinemaID, "err", filmsErr)
	}
	return sessions, err
}

// ListSessionsWithFilms is ListSessions with the films it read for the
// titles, for a page that shows both: one films call, not two. Unlike
// ListSessions it fails when the films cannot be read.
func (c *Client) ListSessionsWithFilms(ctx context.Context, cinemaID, day string) ([]cinema.Session, []cinema.Film, error) {
	sessions, films, filmsErr, err := c.listSessions(ctx, cinemaID, day)
	if err == nil {
		err = filmsErr
	}
	if err != nil {
		return nil, nil, err
	}
	return sessions, films, nil
}

func (c *Client) listSessions(ctx context.Context, cinemaID, day string) (out []cinema.Session, fs []cinema.Film, filmsErr, err error) {
	loc := c.zoneFor(ctx, cinemaID)
	w, err := do[wireSessionList](ctx, c, OpListSessions, routeParams{"cinemaId": cinemaID}, nil, true, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	films := map[string]cinema.Film{}
	fs, filmsErr = c.ListFilms(ctx, cinemaID)
	for _, f := range fs {
		films[f.ID] = f
	}
	out = make([]cinema.Session, 0, len(w.Value))
	cv := c.conv()
	for _, s := range w.Value {
		if s.CinemaId != "" && string(s.CinemaId) != cinemaID {
			continue // a server that ignored the filter
		}
		if s.CinemaId == "" {
			s.CinemaId = flexString(cinemaID)
		}
		cs := cv.session(s, loc, films)
		if day != "" && cs.Day() != day {
			continue
		}
		out = append(out, cs)
	}
	return out, fs, filmsErr, nil
}

// FindSession returns one session of a cinema by either form of its id ("1001" or
// "0001-1001"), with its film title, from a fresh read of the cinema's listing. The client keeps
// nothing: the site reads sessions through the shared listing cache (internal/listings), which
// holds the one copy and its clock.
func (c *Client) FindSession(ctx context.Context, cinemaID, sessionID string) (cinema.Session, error) {
	want := SplitSessionID(cinemaID, sessionID)
	list, err := c.ListSessions(ctx, cinemaID, "")
	if err != nil {
		return cinema.Session{}, err
	}
	for _, s := range list {
		if s.SessionID == want || s.ID == sessionID {
			return s, nil
		}
	}
	return cinema.Session{}, &Error{Op: OpListSessions, HTTPStatus: http.StatusOK, Kind: ErrNotFound, Description: "session " + sessionID + " is not in the listing"}
}

// GetSeatPlan reads the seat plan of a session with the state of every seat.
func (c *Client) GetSeatPlan(ctx context.Context, cinemaID, sessionID string) (cinema.SeatPlan, error) {
	sessionID = SplitSessionID(cinemaID, sessionID)
	w, err := do[wireSeatPlanResponse](ctx, c, OpGetSeatPlan, routeParams{"cinemaId": cinemaID, "sessionId": sessionID}, nil, true, nil)
	if err != nil {
		return cinema.SeatPlan{}, err
	}
	return c.conv().seatPlan(w.SeatLayoutData, cinemaID, sessionID), nil
}

// GetTicketTypes lists the ticket types and prices of a session; a non-empty
// userSessionID prices them for that order (e.g. an edit).
func (c *Client) GetTicketTypes(ctx context.Context, cinemaID, sessionID, userSessionID string) ([]cinema.TicketType, error) {
	sessionID = SplitSessionID(cinemaID, sessionID)
	var q url.Values
	if userSessionID != "" {
		q = url.Values{"userSessionId": {userSessionID}}
	}
	w, err := do[wireTicketTypesResponse](ctx, c, OpGetTicketTypes, routeParams{"cinemaId": cinemaID, "sessionId": sessionID}, nil, true, q)
	if err != nil {
		return nil, err
	}
	return c.conv().ticketTypes(w.Tickets, cinemaID), nil
}
