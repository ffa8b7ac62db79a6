package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

type posJSON struct {
	AreaNumber  int `json:"AreaNumber"`
	RowIndex    int `json:"RowIndex"`
	ColumnIndex int `json:"ColumnIndex"`
}

type seatJSON struct {
	Position       posJSON   `json:"Position"`
	ID             string    `json:"Id"`
	Status         int       `json:"Status"`
	OriginalStatus int       `json:"OriginalStatus"`
	SeatStyle      int       `json:"SeatStyle"`
	Priority       int       `json:"Priority"`
	SeatsInGroup   []posJSON `json:"SeatsInGroup"`
}

type rowJSON struct {
	PhysicalName string     `json:"PhysicalName"`
	Seats        []seatJSON `json:"Seats"`
}

type areaJSON struct {
	Number                int       `json:"Number"`
	AreaCategoryCode      string    `json:"AreaCategoryCode"`
	Description           string    `json:"Description"`
	NumberOfSeats         int       `json:"NumberOfSeats"`
	IsAllocatedSeating    bool      `json:"IsAllocatedSeating"`
	HasSofaSeatingEnabled bool      `json:"HasSofaSeatingEnabled"`
	RowCount              int       `json:"RowCount"`
	ColumnCount           int       `json:"ColumnCount"`
	Top                   int       `json:"Top"`
	Left                  int       `json:"Left"`
	Height                int       `json:"Height"`
	Width                 int       `json:"Width"`
	Rows                  []rowJSON `json:"Rows"`
}

type areaCategoryJSON struct {
	AreaCategoryCode        string `json:"AreaCategoryCode"`
	Name                    string `json:"Name"`
	IsInSeatDeliveryEnabled bool   `json:"IsInSeatDeliveryEnabled"`
}

type seatPlanJSON struct {
	ResponseCode     int     `json:"ResponseCode"`
	ErrorDescription *string `json:"ErrorDescription"`
	SeatLayoutData   struct {
		AreaCategories []areaCategoryJSON `json:"AreaCategories"`
		Areas          []areaJSON         `json:"Areas"`
	} `json:"SeatLayoutData"`
}

func (d *seatDef) posJSON() posJSON { return posJSON{d.pos.area, d.pos.row, d.pos.col} }

// handleSeatPlan answers from a per-session cache that is dropped whenever a
// seat of the session changes owner, so repeated reads cost one copy.
func (s *Server) handleSeatPlan(r *http.Request) reply {
	ss, e := s.sessionFromPath(r)
	if e != nil {
		return seatPlanError(e)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(s.clock.Now())
	if ss.plan == nil {
		b, err := ss.renderPlan()
		if err != nil {
			return seatPlanError(&apiError{result: resUnexpected, msg: fmt.Sprintf("encode seat plan: %v", err)})
		}
		ss.plan = b
	}
	return reply{status: http.StatusOK, raw: ss.plan}
}

// seatPlanError is a refused seat plan: the data envelope with
// "SeatLayoutData": null, as the real service answers.
func seatPlanError(e *apiError) reply {
	desc := e.msg
	return reply{status: http.StatusOK, body: struct {
		ResponseCode     int       `json:"ResponseCode"`
		ErrorDescription *string   `json:"ErrorDescription"`
		SeatLayoutData   *struct{} `json:"SeatLayoutData"`
	}{e.result, &desc, nil}}
}

// planTemplate is a screen's seat-plan answer cut just before each seat's
// Status value, so rendering a session only fills in the statuses.
type planTemplate struct {
	parts [][]byte // len(order)+1 pieces
	order []int    // seat index of each Status, in document order
	size  int
}

// statusSentinel stands in for every Status while the template is encoded.
const statusSentinel = 987654321

// renderPlan writes the seat plan with the current seat states. The
// template is built once per screen with encoding/json, so the output is
// exactly what json.Marshal(ss.seatPlan(ss.status)) gives. s.mu must be held.
func (ss *session) renderPlan() ([]byte, error) {
	sc := ss.screen
	if sc.template == nil {
		var order []int
		doc, err := json.Marshal(ss.seatPlan(func(idx int) int {
			order = append(order, idx)
			return statusSentinel
		}))
		if err != nil {
			return nil, err
		}
		parts := bytes.Split(doc, []byte(`"Status":`+strconv.Itoa(statusSentinel)))
		if len(parts) != len(order)+1 {
			return nil, fmt.Errorf("seat plan template: %d parts for %d seats", len(parts), len(order))
		}
		tpl := &planTemplate{order: order}
		for i, p := range parts {
			if i < len(order) {
				p = append(p, `"Status":`...)
			}
			tpl.parts = append(tpl.parts, p)
			tpl.size += len(p) + 1
		}
		sc.template = tpl
	}
	tpl := sc.template
	buf := make([]byte, 0, tpl.size)
	for i, idx := range tpl.order {
		buf = append(buf, tpl.parts[i]...)
		buf = strconv.AppendInt(buf, int64(ss.status(idx)), 10)
	}
	return append(buf, tpl.parts[len(tpl.order)]...), nil
}

// seatPlan builds the seat-plan answer with statuses from status.
func (ss *session) seatPlan(status func(idx int) int) seatPlanJSON {
	var out seatPlanJSON
	sc := ss.screen
	out.SeatLayoutData.AreaCategories = []areaCategoryJSON{}
	seen := map[string]bool{}
	for _, a := range sc.areas {
		if !seen[a.category.Code] {
			seen[a.category.Code] = true
			out.SeatLayoutData.AreaCategories = append(out.SeatLayoutData.AreaCategories,
				areaCategoryJSON{a.category.Code, a.category.Description, a.category.InSeatDelivery})
		}
		aj := areaJSON{
			Number: a.number, AreaCategoryCode: a.category.Code, Description: a.desc, NumberOfSeats: a.nSeats,
			IsAllocatedSeating: true, HasSofaSeatingEnabled: a.hasSofas, RowCount: len(a.rows), ColumnCount: a.cols,
			Top: a.top, Height: len(a.rows), Width: a.cols, Rows: make([]rowJSON, 0, len(a.rows)),
		}
		for _, row := range a.rows {
			rj := rowJSON{PhysicalName: row.name, Seats: make([]seatJSON, 0, len(row.seats))}
			for _, idx := range row.seats {
				d := &sc.seats[idx]
				sj := seatJSON{Position: d.posJSON(), ID: d.label, Status: status(idx), OriginalStatus: d.kind, SeatStyle: d.style}
				if d.group != nil {
					for _, g := range d.group {
						sj.SeatsInGroup = append(sj.SeatsInGroup, sc.seats[g].posJSON())
					}
				}
				rj.Seats = append(rj.Seats, sj)
			}
			aj.Rows = append(aj.Rows, rj)
		}
		out.SeatLayoutData.Areas = append(out.SeatLayoutData.Areas, aj)
	}
	return out
}
