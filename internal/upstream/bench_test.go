package upstream

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

// largeSeatPlan is a 3-area auditorium of 486 seats (stalls 18×22 with an
// aisle gap, a sofa balcony and a box), with every seat status present.
func largeSeatPlan(tb testing.TB) []byte {
	tb.Helper()
	layout := wireSeatLayout{AreaCategories: []wireAreaCategory{
		{AreaCategoryCode: "0000000001", Description: "Standard"},
		{AreaCategoryCode: "0000000002", Description: "Sofa", IsInSeatDeliveryEnabled: ptr(true)},
	}}
	addArea := func(number, rows, cols int, cat string, sofa bool) {
		a := wireArea{Number: flexInt(number), AreaCategoryCode: cat, Description: "Area " + strconv.Itoa(number), IsAllocatedSeating: ptr(true),
			HasSofaSeatingEnabled: sofa, RowCount: flexInt(rows), ColumnCount: flexInt(cols + 1), Height: float64(rows), Width: float64(cols + 1)}
		for r := range rows {
			row := wireRow{PhysicalName: flexString(rune('A' + r))}
			for col := range cols + 1 {
				if col == cols/2 {
					continue // aisle
				}
				st := (r*7 + col*3) % 8
				s := wireSeat{Position: wirePosition{AreaNumber: number, RowIndex: r, ColumnIndex: col}, Id: flexString(strconv.Itoa(col + 1)),
					Status: st, OriginalStatus: ptr(0), SeatStyle: 0}
				if sofa {
					s.SeatStyle = 1 + col%2*2
					first := col - col%2
					s.SeatsInGroup = []wirePosition{{number, r, first}, {number, r, first + 1}}
				}
				row.Seats = append(row.Seats, s)
				a.NumberOfSeats++
			}
			a.Rows = append(a.Rows, row)
		}
		layout.Areas = append(layout.Areas, a)
	}
	addArea(1, 18, 22, "0000000001", false)
	addArea(2, 4, 20, "0000000002", true)
	addArea(3, 1, 10, "0000000001", false)
	n := 0
	for _, a := range layout.Areas {
		n += int(a.NumberOfSeats)
	}
	if n < 400 {
		tb.Fatalf("only %d seats", n)
	}
	b, err := json.Marshal(wireSeatPlanResponse{SeatLayoutData: &layout})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// largeOrder is an order of 4 sessions × 50 seated tickets with deals.
func largeOrder(tb testing.TB) []byte {
	tb.Helper()
	o := wireOrder{UserSessionId: "0123456789abcdef0123456789abcdef", CinemaId: "0001", TotalValueCents: 250000,
		LastUpdated: legacyDate{time.UnixMilli(1795000000000).In(time.FixedZone("", 3600))}, ExpiryDate: legacyDate{time.UnixMilli(1795000600000)},
		LastUpdatedUtc: isoTime{time.UnixMilli(1795000000000)}, ExpiryDateUtc: isoTime{time.UnixMilli(1795000600000)}}
	for s := range 4 {
		ws := wireOrderSession{CinemaId: "0001", SessionId: flexString(strconv.Itoa(1001 + s)), AllocatedSeating: true, SeatsAllocated: true, FilmTitle: "Film"}
		for i := range 50 {
			ws.Tickets = append(ws.Tickets, wireOrderTicket{Id: strconv.Itoa(s*50 + i + 1), TicketTypeCode: "0001", PriceCents: 1250, SeatData: "F" + strconv.Itoa(i+1),
				Description: "Adult", SeatNumber: strconv.Itoa(i + 1), SeatRowId: "F", SeatAreaCatCode: "0000000001", SeatAreaNumber: "1",
				SeatRowIndex: 5, SeatColumnIndex: i, DealPriceCents: 1000, DealDefinitionId: ptr(flexString("77")), DealDescription: ptr(flexString("Deal")),
				FinalPriceCents: 1000, TaxCents: 160})
		}
		o.Sessions = append(o.Sessions, ws)
	}
	for i := range 5 {
		o.SuggestedDeals = append(o.SuggestedDeals, wireSuggestedDeal{Id: "D" + strconv.Itoa(i), Description: "Deal", LimitPerOrder: ptr(flexInt(2))})
	}
	b, err := json.Marshal(wireOrderEnvelope{Order: &o})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestBenchmarkFixturesDecode(t *testing.T) {
	cv := testConverter()
	var sp wireSeatPlanResponse
	if err := json.Unmarshal(largeSeatPlan(t), &sp); err != nil {
		t.Fatal(err)
	}
	plan := cv.seatPlan(sp.SeatLayoutData, "0001", "1001")
	total := 0
	for _, a := range plan.Areas {
		for _, r := range a.Rows {
			total += len(r.Seats)
		}
	}
	if total != 486 {
		t.Errorf("%d seats", total)
	}
	var env wireOrderEnvelope
	if err := json.Unmarshal(largeOrder(t), &env); err != nil {
		t.Fatal(err)
	}
	o := cv.order(env.Order)
	if len(o.Tickets()) != 200 || o.LastUpdated.UnixMilli() != 1795000000000 {
		t.Errorf("%d tickets, %v", len(o.Tickets()), o.LastUpdated)
	}
}

// BenchmarkDecodeSeatPlan measures the client's decode path of the largest
// seat plan: JSON to wire types, result code check, conversion to cinema.SeatPlan.
func BenchmarkDecodeSeatPlan(b *testing.B) {
	raw := largeSeatPlan(b)
	cv := testConverter()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		v := new(wireSeatPlanResponse)
		if err := json.Unmarshal(raw, v); err != nil {
			b.Fatal(err)
		}
		if !v.resultCodes().ok() {
			b.Fatal("codes")
		}
		_ = cv.seatPlan(v.SeatLayoutData, "0001", "1001")
	}
}

// BenchmarkDecodeLargeOrder measures the same for an order of 200 tickets.
func BenchmarkDecodeLargeOrder(b *testing.B) {
	raw := largeOrder(b)
	cv := testConverter()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		v := new(wireOrderEnvelope)
		if err := json.Unmarshal(raw, v); err != nil {
			b.Fatal(err)
		}
		if !v.resultCodes().ok() {
			b.Fatal("codes")
		}
		_ = cv.order(v.Order)
	}
}
