package sandbox

import (
	"net/http"
	"strconv"
	"time"
)

func errDataNotFound(what string) *apiError {
	return &apiError{result: resDataNotFound, msg: what + " not found"}
}

type odataCinema struct {
	ID           string `json:"ID"`
	Name         string `json:"Name"`
	CurrencyCode string `json:"CurrencyCode"`
	Locale       string `json:"Locale"`
	TimeZone     string `json:"TimeZone"`
}

type odataFilm struct {
	ID       string `json:"ID"`
	Title    string `json:"Title"`
	Rating   string `json:"Rating"`
	RunTime  int    `json:"RunTime"`
	Synopsis string `json:"Synopsis"`
}

type odataSession struct {
	ID                 string   `json:"ID"`
	CinemaID           string   `json:"CinemaId"`
	SessionID          string   `json:"SessionId"`
	ScheduledFilmID    string   `json:"ScheduledFilmId"`
	FilmTitle          string   `json:"FilmTitle"`
	Showtime           string   `json:"Showtime"`
	ScreenName         string   `json:"ScreenName"`
	ScreenNumber       int      `json:"ScreenNumber"`
	IsAllocatedSeating bool     `json:"IsAllocatedSeating"`
	SeatsAvailable     int      `json:"SeatsAvailable"`
	AreaCategoryCodes  []string `json:"AreaCategoryCodes"`
}

type odataList[T any] struct {
	Value []T `json:"value"`
}

func (s *Server) handleCinemas(r *http.Request) reply {
	out := odataList[odataCinema]{Value: []odataCinema{}}
	for _, c := range s.cinemaList { // immutable after New
		out.Value = append(out.Value, odataCinema{c.ID, c.Name, c.CurrencyCode, c.Locale, c.TimeZone})
	}
	return okReply(out)
}

func (s *Server) handleFilms(r *http.Request) reply {
	out := odataList[odataFilm]{Value: []odataFilm{}}
	cid := r.URL.Query().Get("cinemaId")
	var shown map[string]bool
	if cid != "" {
		c, ok := s.cinemas[cid]
		if !ok {
			return errReply(famData, errDataNotFound("cinema"))
		}
		shown = map[string]bool{}
		for _, ss := range c.sessions {
			shown[ss.film.ID] = true
		}
	}
	for _, f := range s.filmList {
		if shown == nil || shown[f.ID] {
			out.Value = append(out.Value, odataFilm{f.ID, f.Title, f.Rating, f.RunTime, f.Synopsis})
		}
	}
	return okReply(out)
}

func (s *Server) handleSessions(r *http.Request) reply {
	q := r.URL.Query()
	cinemas := s.cinemaList
	if cid := q.Get("cinemaId"); cid != "" {
		c, ok := s.cinemas[cid]
		if !ok {
			return errReply(famData, errDataNotFound("cinema"))
		}
		cinemas = []*cinema{c}
	}
	var day time.Time
	if d := q.Get("date"); d != "" {
		var err error
		if day, err = time.Parse(time.DateOnly, d); err != nil {
			return errReply(famData, invalid("date must be YYYY-MM-DD"))
		}
	}
	out := odataList[odataSession]{Value: []odataSession{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(s.clock.Now())
	for _, c := range cinemas {
		for _, ss := range c.sessions {
			if !day.IsZero() && ss.showtime.In(c.loc).Format(time.DateOnly) != day.Format(time.DateOnly) {
				continue
			}
			id := strconv.Itoa(ss.id)
			out.Value = append(out.Value, odataSession{
				ID: c.ID + "-" + id, CinemaID: c.ID, SessionID: id, ScheduledFilmID: ss.film.ID, FilmTitle: ss.film.Title,
				Showtime: isoUTC(ss.showtime), ScreenName: ss.screen.name, ScreenNumber: ss.screen.number,
				IsAllocatedSeating: true, SeatsAvailable: ss.available(), AreaCategoryCodes: ss.screen.categoryCodes(),
			})
		}
	}
	return okReply(out)
}

func (sc *screenDef) categoryCodes() []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range sc.areas {
		if !seen[a.category.Code] {
			seen[a.category.Code] = true
			out = append(out, a.category.Code)
		}
	}
	return out
}

// sessionFromPath resolves {cinemaId} and {sessionId} of a data path.
func (s *Server) sessionFromPath(r *http.Request) (*session, *apiError) {
	c, ok := s.cinemas[r.PathValue("cinemaId")]
	if !ok {
		return nil, errDataNotFound("cinema")
	}
	id, err := strconv.Atoi(r.PathValue("sessionId"))
	if err != nil {
		return nil, errDataNotFound("session")
	}
	ss, ok := s.sessions[id]
	if !ok || ss.cinema != c {
		return nil, errDataNotFound("session")
	}
	return ss, nil
}

type ticketTypeJSON struct {
	TicketTypeCode           string `json:"TicketTypeCode"`
	AreaCategoryCode         string `json:"AreaCategoryCode"`
	Description              string `json:"Description"`
	LongDescription          string `json:"LongDescription"`
	PriceInCents             int64  `json:"PriceInCents"`
	TaxInCents               int64  `json:"TaxInCents"`
	IsPackageTicket          bool   `json:"IsPackageTicket"`
	PackageSize              int    `json:"PackageSize"`
	IsLoyaltyRecognition     bool   `json:"IsLoyaltyRecognition"`
	IsVoucherTicket          bool   `json:"IsVoucherTicket"`
	IsThirdPartyMemberTicket bool   `json:"IsThirdPartyMemberTicket"`
	IsChildTicket            bool   `json:"IsChildTicket"`
}

// simple reports whether a ticket type may be used in an edit.
func simple(tt *TicketType) bool {
	return tt.PackageSize <= 1 && !tt.IsLoyaltyRecognition && !tt.IsVoucher && !tt.IsThirdPartyMember
}

func (s *Server) handleTicketTypes(r *http.Request) reply {
	ss, e := s.sessionFromPath(r)
	if e != nil {
		return errReply(famData, e)
	}
	// With the userSessionId of an edit, only the simple ticket types an
	// edit accepts are listed.
	editOnly := false
	if id := r.URL.Query().Get("userSessionId"); id != "" {
		s.mu.Lock()
		if o, ok := s.orders[id]; ok && o.edit != nil {
			editOnly = true
		}
		s.mu.Unlock()
	}
	cats := map[string]bool{}
	for _, code := range ss.screen.categoryCodes() {
		cats[code] = true
	}
	out := struct {
		ResponseCode     int              `json:"ResponseCode"`
		ErrorDescription *string          `json:"ErrorDescription"`
		Tickets          []ticketTypeJSON `json:"Tickets"`
	}{Tickets: []ticketTypeJSON{}}
	for i := range ss.cinema.TicketTypes {
		tt := &ss.cinema.TicketTypes[i]
		if !cats[tt.AreaCategoryCode] || (editOnly && !simple(tt)) {
			continue
		}
		out.Tickets = append(out.Tickets, ticketTypeJSON{
			TicketTypeCode: tt.Code, AreaCategoryCode: tt.AreaCategoryCode, Description: tt.Description, LongDescription: tt.LongDescription,
			PriceInCents: tt.PriceInCents, TaxInCents: tt.TaxInCents, IsPackageTicket: tt.PackageSize > 1, PackageSize: tt.PackageSize,
			IsLoyaltyRecognition: tt.IsLoyaltyRecognition, IsVoucherTicket: tt.IsVoucher, IsThirdPartyMemberTicket: tt.IsThirdPartyMember, IsChildTicket: tt.IsChild,
		})
	}
	return okReply(out)
}
