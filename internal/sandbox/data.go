package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

func errDataNotFound(what string) *apiError {
	return &apiError{result: resDataNotFound, msg: what + " not found"}
}

type odataCinema struct {
	ID           string `json:"ID"`
	Name         string `json:"Name"`
	TimeZoneID   string `json:"TimeZoneId"`
	CurrencyCode string `json:"CurrencyCode"`
}

// odataFilm is a ScheduledFilms row: a film as scheduled at one cinema.
type odataFilm struct {
	ID              string `json:"ID"`
	ScheduledFilmID string `json:"ScheduledFilmId"`
	CinemaID        string `json:"CinemaId"`
	Title           string `json:"Title"`
	Rating          string `json:"Rating"`
	RunTime         string `json:"RunTime"` // minutes, as a string like the real service
	Synopsis        string `json:"Synopsis"`
}

type odataSession struct {
	ID                     string   `json:"ID"`
	CinemaID               string   `json:"CinemaId"`
	SessionID              string   `json:"SessionId"`
	ScheduledFilmID        string   `json:"ScheduledFilmId"`
	Showtime               string   `json:"Showtime"`
	SessionBusinessDate    string   `json:"SessionBusinessDate"`
	ScreenName             string   `json:"ScreenName"`
	ScreenNumber           int      `json:"ScreenNumber"`
	SeatsAvailable         int      `json:"SeatsAvailable"`
	AllowTicketSales       bool     `json:"AllowTicketSales"`
	SoldoutStatus          int      `json:"SoldoutStatus"`
	SessionAttributesNames []string `json:"SessionAttributesNames"`
}

// SoldoutStatus values of a session row.
const (
	soldoutNo  = 0
	soldoutYes = 2
)

// localTimeLayout is the real service's local wall-clock form: no offset, no Z.
const localTimeLayout = "2006-01-02T15:04:05"

// businessDayStartHour is when the business day begins: a session starting
// earlier belongs to the day before.
const businessDayStartHour = 6

type odataList[T any] struct {
	Value []T `json:"value"`
}

func (s *Server) handleCinemas(r *http.Request) reply {
	out := odataList[odataCinema]{Value: []odataCinema{}}
	for _, c := range s.cinemaList { // immutable after New
		out.Value = append(out.Value, odataCinema{c.ID, c.Name, c.TimeZone, c.CurrencyCode})
	}
	return okReply(out)
}

// filteredCinemas are the cinemas a listing's $filter asks for: all of them
// without a CinemaId clause, none for an unknown cinema.
func (s *Server) filteredCinemas(r *http.Request) ([]*cinema, *apiError) {
	cid, ok, err := cinemaFilter(r.URL.Query().Get("$filter"))
	if err != nil {
		return nil, malformed("$filter: %v", err)
	}
	if !ok {
		return s.cinemaList, nil
	}
	if c, found := s.cinemas[cid]; found {
		return []*cinema{c}, nil
	}
	return nil, nil
}

// handleFilms lists the films scheduled at each cinema (OData ScheduledFilms).
func (s *Server) handleFilms(r *http.Request) reply {
	cinemas, e := s.filteredCinemas(r)
	if e != nil {
		return errReply(famData, e)
	}
	out := odataList[odataFilm]{Value: []odataFilm{}}
	for _, c := range cinemas {
		shown := map[string]bool{}
		for _, ss := range c.sessions {
			shown[ss.film.ID] = true
		}
		for _, f := range s.filmList {
			if shown[f.ID] {
				out.Value = append(out.Value, odataFilm{ID: c.ID + "-" + f.ID, ScheduledFilmID: f.ID, CinemaID: c.ID,
					Title: f.Title, Rating: f.Rating, RunTime: strconv.Itoa(f.RunTime), Synopsis: f.Synopsis})
			}
		}
	}
	return okReply(out)
}

func (s *Server) handleSessions(r *http.Request) reply {
	cinemas, e := s.filteredCinemas(r)
	if e != nil {
		return errReply(famData, e)
	}
	out := odataList[odataSession]{Value: []odataSession{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(s.clock.Now())
	for _, c := range cinemas {
		for _, ss := range c.sessions {
			out.Value = append(out.Value, ss.odataRow())
		}
	}
	return okReply(out)
}

// odataRow renders a session as the real service lists it: local times
// without an offset, no film title. s.mu must be held.
func (ss *session) odataRow() odataSession {
	c := ss.cinema
	id := strconv.Itoa(ss.id)
	free := ss.available()
	soldout := soldoutNo
	if free == 0 {
		soldout = soldoutYes
	}
	attrs := append([]string{}, ss.attributes...)
	return odataSession{
		ID: c.ID + "-" + id, CinemaID: c.ID, SessionID: id, ScheduledFilmID: ss.film.ID,
		Showtime: ss.showtime.In(c.loc).Format(localTimeLayout), SessionBusinessDate: businessDate(ss.showtime.In(c.loc)),
		ScreenName: ss.screen.name, ScreenNumber: ss.screen.number, SeatsAvailable: free,
		AllowTicketSales: true, SoldoutStatus: soldout, SessionAttributesNames: attrs,
	}
}

// businessDate is the day a local start time belongs to, in the real
// service's form "2006-01-02T00:00:00".
func businessDate(local time.Time) string {
	if local.Hour() < businessDayStartHour {
		local = local.AddDate(0, 0, -1)
	}
	return local.Format(time.DateOnly) + "T00:00:00"
}

// cinemaFilter reads the CinemaId of an OData $filter such as
// "CinemaId eq '0001'" or "CinemaId eq '0001' and SessionBusinessDate ge ...".
// Clauses joined with "and" that name other properties are ignored; ok is
// false when no clause names CinemaId.
func cinemaFilter(filter string) (cinemaID string, ok bool, err error) {
	clauses, err := splitAnd(filter)
	if err != nil {
		return "", false, err
	}
	for _, cl := range clauses {
		prop, rest, found := strings.Cut(cl, " ")
		if !found || !strings.EqualFold(prop, "CinemaId") {
			continue
		}
		op, lit, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if !strings.EqualFold(op, "eq") {
			return "", false, fmt.Errorf("CinemaId only supports eq, got %q", op)
		}
		v, err := odataLiteral(strings.TrimSpace(lit))
		if err != nil {
			return "", false, err
		}
		return v, true, nil
	}
	return "", false, nil
}

// splitAnd splits a filter at every " and " (any case) outside string
// literals, and drops the parentheses at either end of each clause.
func splitAnd(filter string) ([]string, error) {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(filter); i++ {
		switch {
		case filter[i] == '\'':
			quoted = !quoted // a doubled quote toggles twice
		case !quoted && i > start && hasAndAt(filter, i):
			out = append(out, filter[start:i])
			start = i + len(" and ")
			i = start - 1
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated string literal in %q", filter)
	}
	out = append(out, filter[start:])
	clauses := out[:0]
	for _, cl := range out {
		cl = strings.TrimRight(strings.TrimLeft(cl, "( "), ") ")
		if cl != "" {
			clauses = append(clauses, cl)
		}
	}
	return clauses, nil
}

func hasAndAt(s string, i int) bool {
	const and = " and "
	return i+len(and) <= len(s) && strings.EqualFold(s[i:i+len(and)], and)
}

// odataLiteral reads a string literal such as '0001' (a quote inside is
// written twice) or a bare number.
func odataLiteral(lit string) (string, error) {
	if lit == "" {
		return "", errors.New("CinemaId eq needs a value")
	}
	if lit[0] != '\'' {
		if _, err := strconv.Atoi(lit); err != nil {
			return "", fmt.Errorf("CinemaId value %q is not a string literal", lit)
		}
		return lit, nil
	}
	if len(lit) < 2 || lit[len(lit)-1] != '\'' {
		return "", fmt.Errorf("unterminated string literal %s", lit)
	}
	body := lit[1 : len(lit)-1]
	if strings.Count(strings.ReplaceAll(body, "''", ""), "'") != 0 {
		return "", fmt.Errorf("bad string literal %s", lit)
	}
	return strings.ReplaceAll(body, "''", "'"), nil
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
	TicketTypeCode                      string              `json:"TicketTypeCode"`
	AreaCategoryCode                    string              `json:"AreaCategoryCode"`
	Description                         string              `json:"Description"`
	PriceInCents                        int64               `json:"PriceInCents"`
	IsChildOnlyTicket                   bool                `json:"IsChildOnlyTicket"`
	IsAvailableAsLoyaltyRecognitionOnly bool                `json:"IsAvailableAsLoyaltyRecognitionOnly"`
	ProductCodeForVoucher               string              `json:"ProductCodeForVoucher"`
	IsPackageTicket                     bool                `json:"IsPackageTicket"`
	PackageContent                      *packageContentJSON `json:"PackageContent"`
	LongDescription                     string              `json:"LongDescription"`
	TaxInCents                          int64               `json:"TaxInCents"`
	IsThirdPartyMemberTicket            bool                `json:"IsThirdPartyMemberTicket"`
}

// packageContentJSON lists what a package holds: one ticket per seat.
type packageContentJSON struct {
	Tickets []packageTicketJSON `json:"Tickets"`
}

type packageTicketJSON struct {
	TicketTypeCode string `json:"TicketTypeCode"`
	Description    string `json:"Description"`
	Quantity       int    `json:"Quantity"`
}

// ticketTypeRow renders a ticket type the way the real service lists it, at
// its price in the session (see session.ticketPrice).
func ticketTypeRow(ss *session, tt *TicketType) ticketTypeJSON {
	price, tax := ss.ticketPrice(tt)
	j := ticketTypeJSON{
		TicketTypeCode: tt.Code, AreaCategoryCode: tt.AreaCategoryCode, Description: tt.Description, PriceInCents: price,
		IsChildOnlyTicket: tt.IsChild, IsAvailableAsLoyaltyRecognitionOnly: tt.IsLoyaltyRecognition, IsPackageTicket: tt.PackageSize > 1,
		LongDescription: tt.LongDescription, TaxInCents: tax, IsThirdPartyMemberTicket: tt.IsThirdPartyMember,
	}
	if tt.IsVoucher {
		j.ProductCodeForVoucher = voucherProductCode(tt)
	}
	if tt.PackageSize > 1 {
		j.PackageContent = &packageContentJSON{}
		for i := 0; i < tt.PackageSize; i++ {
			j.PackageContent.Tickets = append(j.PackageContent.Tickets, packageTicketJSON{TicketTypeCode: tt.Code, Description: tt.Description, Quantity: 1})
		}
	}
	return j
}

// voucherProductCode is the product a voucher ticket redeems.
func voucherProductCode(tt *TicketType) string { return "VOUCHER-" + tt.Code }

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
		out.Tickets = append(out.Tickets, ticketTypeRow(ss, tt))
	}
	return okReply(out)
}
