package sandbox

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestTransport(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name       string
		method     string
		path       string
		body       any
		header     map[string]string
		wantStatus int
		wantResult int64
		wantField  string // the code field of the family
	}{
		{"missing token", "GET", "/OData.svc/Cinemas", nil, map[string]string{"connectapitoken": ""}, 401, 4, "Result"},
		{"wrong token", "GET", "/OData.svc/Cinemas", nil, map[string]string{"connectapitoken": "nope"}, 403, 4, "Result"},
		{"admin needs the token", "GET", "/sandbox-admin/stats", nil, map[string]string{"connectapitoken": ""}, 401, 4, "Result"},
		{"unknown path", "GET", "/RESTTicketing.svc/nothing", nil, nil, 404, 4, "Result"},
		{"wrong method", "GET", "/RESTTicketing.svc/order", nil, nil, 405, 4, "Result"},
		{"malformed ticketing body", "POST", "/RESTTicketing.svc/order/tickets", "{not json", nil, 400, 4, "Result"},
		{"empty ticketing body", "POST", "/RESTTicketing.svc/order", "", nil, 400, 4, "Result"},
		{"wrong field type", "POST", "/RESTTicketing.svc/order/tickets", `{"UserSessionId":5}`, nil, 400, 4, "Result"},
		{"trailing data", "POST", "/RESTTicketing.svc/order", `{"UserSessionId":"a"} {}`, nil, 400, 4, "Result"},
		{"bad user session id", "POST", "/RESTTicketing.svc/order", map[string]any{"UserSessionId": "ABC"}, nil, 200, 4, "Result"},
		{"upper-case hex id", "POST", "/RESTTicketing.svc/order", map[string]any{"UserSessionId": strings.ToUpper(newID())}, nil, 200, 4, "Result"},
		{"unknown order", "POST", "/RESTTicketing.svc/order", map[string]any{"UserSessionId": newID()}, nil, 200, 4, "Result"},
		{"malformed booking body", "POST", "/RESTBooking.svc/booking", "[", nil, 400, 4, "ResultCode"},
		{"malformed swap body", "POST", "/cinemas/0001/bookings/BK0186A1/swap-seats", "{", nil, 400, 4, "result"},
		{"malformed complete-edit body", "POST", "/orders/" + newID() + "/complete-edit", "{", nil, 400, 4, "result"},
		{"unknown data session", "GET", "/RESTData.svc/cinemas/0001/sessions/9999/seat-plan", nil, nil, 200, 50, "ResponseCode"},
		{"unknown data cinema", "GET", "/RESTData.svc/cinemas/0009/sessions/1113/tickets", nil, nil, 200, 50, "ResponseCode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.t = t
			resp, data := h.raw(tc.method, tc.path, tc.body, tc.header)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.wantStatus, data)
			}
			var j J
			if err := json.Unmarshal(data, &j); err != nil {
				t.Fatalf("not JSON: %s", data)
			}
			if got := h.num(j, tc.wantField); got != tc.wantResult {
				t.Fatalf("%s = %d, want %d: %s", tc.wantField, got, tc.wantResult, data)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("Content-Type %q", ct)
			}
		})
	}
	h.t = t

	t.Run("camelCase refusal carries a reason", func(t *testing.T) {
		h.t = t
		st, j := h.call("POST", "/cinemas/0001/bookings/BK0186A1/swap-seats", "{")
		if st != 400 || h.str(j, "reason") != "invalid_request" {
			t.Fatalf("got %d %s", st, compact(j))
		}
		for _, k := range []string{"result", "extendedResultCode", "errorDescription", "reason"} {
			if _, ok := j[k]; !ok {
				t.Fatalf("missing %s in %s", k, compact(j))
			}
		}
	})
	t.Run("X-Request-ID is echoed", func(t *testing.T) {
		h.t = t
		resp, _ := h.raw("GET", "/OData.svc/Cinemas", nil, map[string]string{"X-Request-ID": "req-123"})
		if got := resp.Header.Get("X-Request-ID"); got != "req-123" {
			t.Fatalf("X-Request-ID %q", got)
		}
		resp, _ = h.raw("GET", "/nowhere", nil, map[string]string{"X-Request-ID": "req-404", "connectapitoken": "bad"})
		if got := resp.Header.Get("X-Request-ID"); got != "req-404" {
			t.Fatalf("X-Request-ID on refusal %q", got)
		}
	})
	t.Run("legacy dates use escaped slashes", func(t *testing.T) {
		h.t = t
		id := newID()
		h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001"}, "A10"))
		_, data := h.raw("POST", "/RESTTicketing.svc/order", map[string]any{"UserSessionId": id}, nil)
		if !strings.Contains(string(data), `"ExpiryDate":"\/Date(`) || !strings.Contains(string(data), `+0100)\/"`) {
			t.Fatalf("legacy date form missing: %s", data)
		}
		j := h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id})
		if got := h.str(j, "Order.ExpiryDateUtc"); got != "2026-11-22T09:10:00Z" {
			t.Fatalf("ExpiryDateUtc %s", got)
		}
	})
}

// odataPath is a listing path with an OData $filter, encoded as a client sends it.
func odataPath(entity, filter string) string {
	if filter == "" {
		return "/OData.svc/" + entity
	}
	return "/OData.svc/" + entity + "?" + url.Values{"$filter": {filter}}.Encode()
}

func TestDataCalls(t *testing.T) {
	h := newHarness(t)
	cin := h.get("/OData.svc/Cinemas")
	wantKeys(t, h.val(cin, "value.0").(map[string]any), "ID", "Name", "TimeZoneId", "CurrencyCode")
	if len(h.list(cin, "value")) != 2 || h.str(cin, "value.0.TimeZoneId") != "Europe/Berlin" || h.str(cin, "value.0.CurrencyCode") != "EUR" ||
		h.str(cin, "value.1.TimeZoneId") != "Europe/London" || h.str(cin, "value.1.CurrencyCode") != "GBP" {
		t.Fatalf("cinemas: %s", compact(cin))
	}

	films := h.get(odataPath("ScheduledFilms", "CinemaId eq '0001'"))
	wantKeys(t, h.val(films, "value.0").(map[string]any), "ID", "ScheduledFilmId", "CinemaId", "Title", "Rating", "RunTime", "Synopsis")
	for _, v := range h.list(films, "value") {
		m := v.(map[string]any)
		if m["CinemaId"] != "0001" || m["ID"] != "0001-"+m["ScheduledFilmId"].(string) {
			t.Fatalf("film row: %v", m)
		}
		if rt, ok := m["RunTime"].(string); !ok || rt == "" || strings.Trim(rt, "0123456789") != "" {
			t.Fatalf("RunTime must be a string of minutes: %v", m)
		}
	}
	if n := len(h.list(films, "value")); n < 3 || n > 5 {
		t.Fatalf("films at 0001: %s", compact(films))
	}
	if all := h.get(odataPath("ScheduledFilms", "")); len(h.list(all, "value")) <= len(h.list(films, "value")) {
		t.Fatalf("films without a filter list every cinema: %s", compact(all))
	}

	// 24 sessions a cinema (4 days × 2 screens × 3), and at 0001 the two of the change cut-off
	// bookings (1028, 1029) and the matinee of the showtime change (1214).
	for _, tc := range []struct {
		name, path string
		want       int
	}{
		{"one cinema", odataPath("Sessions", "CinemaId eq '0001'"), 27},
		{"joined with and", odataPath("Sessions", "CinemaId eq '0002' and SessionBusinessDate ge datetime'2026-11-23T00:00:00'"), 24},
		{"no filter", odataPath("Sessions", ""), 51},
		{"unknown cinema", odataPath("Sessions", "CinemaId eq '0042'"), 0},
		{"old parameters are ignored", "/OData.svc/Sessions?cinemaId=0002&date=2026-11-23", 51},
	} {
		if n := len(h.list(h.get(tc.path), "value")); n != tc.want {
			t.Fatalf("%s: %d sessions, want %d", tc.name, n, tc.want)
		}
	}
	if st, j := h.call("GET", odataPath("Sessions", "CinemaId eq '0001"), nil); st != 400 || h.num(j, "ResponseCode") != 4 {
		t.Fatalf("malformed $filter: %d %s", st, compact(j))
	}

	sessions := h.get(odataPath("Sessions", "CinemaId eq '0001'"))
	byID := map[string]map[string]any{}
	days := map[string]int{}
	for _, v := range h.list(sessions, "value") {
		m := v.(map[string]any)
		byID[m["SessionId"].(string)] = m
		days[m["SessionBusinessDate"].(string)]++
	}
	s1113 := byID["1113"]
	wantKeys(t, s1113, "ID", "CinemaId", "SessionId", "ScheduledFilmId", "Showtime", "SessionBusinessDate", "ScreenName", "ScreenNumber",
		"SeatsAvailable", "AllowTicketSales", "SoldoutStatus", "SessionAttributesNames")
	for k, want := range map[string]any{"ID": "0001-1113", "CinemaId": "0001", "Showtime": "2026-11-23T20:30:00", "SessionBusinessDate": "2026-11-23T00:00:00",
		"ScreenName": "Saal 1", "ScreenNumber": 1.0, "AllowTicketSales": true, "SoldoutStatus": 0.0} {
		if s1113[k] != want {
			t.Fatalf("session 1113 %s = %v, want %v: %v", k, s1113[k], want, s1113)
		}
	}
	if n := s1113["SeatsAvailable"].(float64); n >= 412-7 {
		t.Fatalf("sold seats not subtracted: %v", n)
	}
	if a := s1113["SessionAttributesNames"].([]any); len(a) != 0 {
		t.Fatalf("session 1113 attributes: %v", a)
	}
	if a := byID["1123"]["SessionAttributesNames"].([]any); len(a) != 1 || a[0] != "OV" {
		t.Fatalf("session 1123 attributes: %v", a)
	}
	if days["2026-11-23T00:00:00"] != 6 || days["2026-11-22T00:00:00"] != 6+2 { // today: and the cut-off bookings' two
		t.Fatalf("business days: %v", days)
	}

	tickets := h.get("/RESTData.svc/cinemas/0001/sessions/1113/tickets")
	if h.num(tickets, "ResponseCode") != 0 {
		t.Fatalf("tickets: %s", compact(tickets))
	}
	wantKeys(t, h.val(tickets, "Tickets.0").(map[string]any), "TicketTypeCode", "AreaCategoryCode", "Description", "PriceInCents",
		"IsChildOnlyTicket", "IsAvailableAsLoyaltyRecognitionOnly", "ProductCodeForVoucher", "IsPackageTicket", "PackageContent",
		"LongDescription", "TaxInCents", "IsThirdPartyMemberTicket")
	kinds := map[string]bool{}
	for _, v := range h.list(tickets, "Tickets") {
		m := v.(map[string]any)
		for _, k := range []string{"IsPackageTicket", "IsAvailableAsLoyaltyRecognitionOnly", "IsThirdPartyMemberTicket", "IsChildOnlyTicket"} {
			if m[k] == true {
				kinds[k] = true
			}
		}
		if m["ProductCodeForVoucher"] != "" {
			kinds["voucher"] = true
		}
		switch m["TicketTypeCode"] {
		case "0001":
			if m["PriceInCents"] != 1250.0 || m["TaxInCents"] != 200.0 || m["PackageContent"] != nil || m["ProductCodeForVoucher"] != "" {
				t.Fatalf("adult: %v", m)
			}
		case "0004":
			content := m["PackageContent"].(map[string]any)["Tickets"].([]any)
			if len(content) != 2 || content[0].(map[string]any)["Quantity"] != 1.0 {
				t.Fatalf("couple package content: %v", m)
			}
		}
	}
	if len(kinds) != 5 {
		t.Fatalf("ticket kinds: %v", kinds)
	}
	small := h.get("/RESTData.svc/cinemas/0001/sessions/1123/tickets")
	for _, v := range h.list(small, "Tickets") {
		if v.(map[string]any)["AreaCategoryCode"] != catStandard {
			t.Fatalf("premium ticket offered for a screen without premium seats: %v", v)
		}
	}
}

// A session without a free place is sold out.
func TestSessionSoldOut(t *testing.T) {
	h := newHarness(t)
	h.srv.mu.Lock()
	ss := h.srv.sessions[1121]
	b := h.srv.bookings["BK0186A1"]
	for i := range ss.owners {
		ss.setOwner(i, owner{booking: b})
	}
	h.srv.mu.Unlock()
	for _, v := range h.list(h.get(odataPath("Sessions", "CinemaId eq '0001'")), "value") {
		m := v.(map[string]any)
		want := 0.0
		if m["SessionId"] == "1121" {
			want = 2
			if m["SeatsAvailable"] != 0.0 {
				t.Fatalf("sold out session: %v", m)
			}
		}
		if m["SoldoutStatus"] != want {
			t.Fatalf("session %v SoldoutStatus %v, want %v", m["SessionId"], m["SoldoutStatus"], want)
		}
	}
}

func TestBusinessDate(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		local string
		want  string
	}{
		{"2026-11-23 20:30", "2026-11-23T00:00:00"},
		{"2026-11-24 00:30", "2026-11-23T00:00:00"}, // after midnight: the day before
		{"2026-11-24 05:59", "2026-11-23T00:00:00"},
		{"2026-11-24 06:00", "2026-11-24T00:00:00"},
		{"2026-01-01 01:15", "2025-12-31T00:00:00"},
	} {
		at, err := time.ParseInLocation("2006-01-02 15:04", tc.local, berlin)
		if err != nil {
			t.Fatal(err)
		}
		if got := businessDate(at); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.local, got, tc.want)
		}
	}
}

func TestCinemaFilter(t *testing.T) {
	for _, tc := range []struct {
		filter string
		want   string
		ok     bool
		err    bool
	}{
		{filter: "", ok: false},
		{filter: "CinemaId eq '0001'", want: "0001", ok: true},
		{filter: "CinemaId  eq  '0001' ", want: "0001", ok: true},
		{filter: "(CinemaId eq '0001')", want: "0001", ok: true},
		{filter: "((CinemaId eq '0001' and AllowTicketSales eq true))", want: "0001", ok: true},
		{filter: "CinemaId eq 'a)'", want: "a)", ok: true},
		{filter: "CinemaId eq '0001' and SessionBusinessDate eq datetime'2026-11-23T00:00:00'", want: "0001", ok: true},
		{filter: "Showtime ge datetime'2026-11-23T00:00:00' AND CinemaId eq '0002'", want: "0002", ok: true},
		{filter: "ScheduledFilmId eq 'A and CinemaId eq ''9'''", ok: false}, // "and" inside a literal does not split
		{filter: "CinemaId eq 'O''Neil'", want: "O'Neil", ok: true},
		{filter: "CinemaId eq 1", want: "1", ok: true},
		{filter: "ScheduledFilmId eq 'HO00000001'", ok: false},
		{filter: "CinemaId eq '0001", err: true},
		{filter: "CinemaId ne '0001'", err: true},
		{filter: "CinemaId eq", err: true},
		{filter: "CinemaId eq 'a'b'", err: true},
	} {
		got, ok, err := cinemaFilter(tc.filter)
		if (err != nil) != tc.err || ok != tc.ok || got != tc.want {
			t.Errorf("%q: got %q %v %v, want %q %v error %v", tc.filter, got, ok, err, tc.want, tc.ok, tc.err)
		}
	}
}

func TestSeatPlanOfTheLargeAuditorium(t *testing.T) {
	h := newHarness(t)
	plan := h.get("/RESTData.svc/cinemas/0001/sessions/1113/seat-plan")
	if h.num(plan, "ResponseCode") != 0 {
		t.Fatalf("seat plan: %s", compact(plan))
	}
	if j := h.get("/RESTData.svc/cinemas/0001/sessions/9999/seat-plan"); h.num(j, "ResponseCode") != resDataNotFound || j["SeatLayoutData"] != nil {
		t.Fatalf("unknown session: %s", compact(j))
	} else if _, ok := j["SeatLayoutData"]; !ok {
		t.Fatalf("unknown session without SeatLayoutData null: %s", compact(j))
	}
	if n := len(h.list(plan, "SeatLayoutData.AreaCategories")); n != 2 {
		t.Fatalf("area categories: %d", n)
	}
	wantKeys(t, h.val(plan, "SeatLayoutData.AreaCategories.1").(map[string]any), "AreaCategoryCode", "Name", "IsInSeatDeliveryEnabled")
	if h.str(plan, "SeatLayoutData.AreaCategories.1.Name") != "Premium" || h.val(plan, "SeatLayoutData.AreaCategories.1.IsInSeatDeliveryEnabled") != true {
		t.Fatalf("area category: %s", compact(plan))
	}
	total, statuses, originals, styles := 0, map[int64]int{}, map[int64]int{}, map[int64]int{}
	crossAisle, gaps, groups := false, false, 0
	for _, a := range h.list(plan, "SeatLayoutData.Areas") {
		am := a.(map[string]any)
		for _, r := range am["Rows"].([]any) {
			rm := r.(map[string]any)
			seats := rm["Seats"].([]any)
			if rm["PhysicalName"] == "" {
				if len(seats) != 0 {
					t.Fatalf("cross aisle with seats")
				}
				crossAisle = true
				continue
			}
			prev := -1
			for _, s := range seats {
				sm := s.(map[string]any)
				total++
				statuses[int64(sm["Status"].(float64))]++
				originals[int64(sm["OriginalStatus"].(float64))]++
				styles[int64(sm["SeatStyle"].(float64))]++
				col := int(sm["Position"].(map[string]any)["ColumnIndex"].(float64))
				if prev >= 0 && col > prev+1 {
					gaps = true
				}
				prev = col
				if g, ok := sm["SeatsInGroup"].([]any); ok {
					groups++
					if len(g) != 2 {
						t.Fatalf("sofa group of %d", len(g))
					}
				} else if sm["SeatsInGroup"] != nil {
					t.Fatalf("SeatsInGroup must be null or a list: %v", sm)
				}
			}
		}
	}
	if total != 412 {
		t.Fatalf("want 412 seats, got %d", total)
	}
	if !crossAisle || !gaps {
		t.Fatalf("cross aisle %v, aisles %v", crossAisle, gaps)
	}
	if originals[seatSpecial] != 4 || originals[seatCompanion] != 4 || originals[seatHouse] != 4 || originals[seatBroken] != 1 {
		t.Fatalf("original statuses: %v", originals)
	}
	if styles[styleSofaLeft] != 30 || styles[styleSofaRight] != 30 || groups != 60 {
		t.Fatalf("sofas: styles %v groups %d", styles, groups)
	}
	if statuses[seatSold] != 29 || statuses[seatReserved] != 2 { // 29: 100020's K11-K13 included
		t.Fatalf("sold/reserved from ready-made bookings: %v", statuses)
	}
	if got := h.seatStatus("0001", 1113, "F11"); got != seatSold {
		t.Fatalf("F11 status %d", got)
	}
	if got := h.seatStatus("0001", 1113, "E11"); got != seatReserved {
		t.Fatalf("E11 (unpaid reservation) status %d", got)
	}
}

// The template renderer gives exactly what encoding/json gives.
func TestSeatPlanTemplateMatchesEncoder(t *testing.T) {
	h := newHarness(t)
	h.wantOK(h.addTickets(newID(), "0001", 1113, []string{"0104"}, "T1", "T2"))
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	for _, id := range []int{1113, 1123, 2113} {
		ss := h.srv.sessions[id]
		got, err := ss.renderPlan()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(ss.seatPlan(ss.status))
		if string(got) != string(want) {
			t.Fatalf("session %d: template output differs", id)
		}
	}
}
