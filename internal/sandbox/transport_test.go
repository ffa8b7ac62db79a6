package sandbox

import (
	"encoding/json"
	"strings"
	"testing"
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

func TestDataCalls(t *testing.T) {
	h := newHarness(t)
	cin := h.get("/OData.svc/Cinemas")
	if len(h.list(cin, "value")) != 2 || h.str(cin, "value.0.CurrencyCode") != "EUR" || h.str(cin, "value.1.CurrencyCode") != "GBP" {
		t.Fatalf("cinemas: %s", compact(cin))
	}
	films := h.get("/OData.svc/Films?cinemaId=0001")
	if len(h.list(films, "value")) < 3 || h.str(films, "value.0.ID") == "" {
		t.Fatalf("films: %s", compact(films))
	}
	all := h.get("/OData.svc/Sessions?cinemaId=0001")
	if n := len(h.list(all, "value")); n != 24 {
		t.Fatalf("want 24 sessions at 0001, got %d", n)
	}
	tomorrow := h.get("/OData.svc/Sessions?cinemaId=0001&date=2026-11-23")
	found := false
	for _, v := range h.list(tomorrow, "value") {
		m := v.(map[string]any)
		if m["SessionId"] == "1113" {
			found = true
			if m["Showtime"] != "2026-11-23T19:30:00Z" || m["ScreenName"] != "Saal 1" || m["IsAllocatedSeating"] != true {
				t.Fatalf("session 1113: %v", m)
			}
			if int(m["SeatsAvailable"].(float64)) >= 412-7 {
				t.Fatalf("sold seats not subtracted: %v", m["SeatsAvailable"])
			}
		}
	}
	if !found || len(h.list(tomorrow, "value")) != 6 {
		t.Fatalf("date filter: %s", compact(tomorrow))
	}
	today := h.get("/OData.svc/Sessions?cinemaId=0001&date=2026-11-22")
	if len(h.list(today, "value")) != 6 {
		t.Fatalf("today: %s", compact(today))
	}
	if _, j := h.call("GET", "/OData.svc/Sessions?date=22-11-2026", nil); h.num(j, "ResponseCode") != 4 {
		t.Fatalf("bad date accepted: %s", compact(j))
	}

	tickets := h.get("/RESTData.svc/cinemas/0001/sessions/1113/tickets")
	if h.num(tickets, "ResponseCode") != 0 {
		t.Fatalf("tickets: %s", compact(tickets))
	}
	kinds := map[string]bool{}
	for _, v := range h.list(tickets, "Tickets") {
		m := v.(map[string]any)
		for _, k := range []string{"IsPackageTicket", "IsLoyaltyRecognition", "IsVoucherTicket", "IsThirdPartyMemberTicket", "IsChildTicket"} {
			if m[k] == true {
				kinds[k] = true
			}
		}
		if m["TicketTypeCode"] == "0001" && (m["PriceInCents"] != 1250.0 || m["TaxInCents"] != 200.0) {
			t.Fatalf("adult price: %v", m)
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

func TestSeatPlanOfTheLargeAuditorium(t *testing.T) {
	h := newHarness(t)
	plan := h.get("/RESTData.svc/cinemas/0001/sessions/1113/seat-plan")
	if h.num(plan, "ResponseCode") != 0 {
		t.Fatalf("seat plan: %s", compact(plan))
	}
	if n := len(h.list(plan, "SeatLayoutData.AreaCategories")); n != 2 {
		t.Fatalf("area categories: %d", n)
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
	if statuses[seatSold] != 26 || statuses[seatReserved] != 2 {
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
