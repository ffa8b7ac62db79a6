package sandbox

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestFaults(t *testing.T) {
	h := newHarness(t)
	id := newID()
	h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001"}, "A10"))
	getOrder := map[string]any{"UserSessionId": id}

	t.Run("latency", func(t *testing.T) {
		h.t = t
		if err := h.srv.Faults().Set(Fault{Operation: "GetOrder", Latency: Duration(80 * time.Millisecond), Times: 1}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		h.wantOK(h.post("/RESTTicketing.svc/order", getOrder))
		if d := time.Since(start); d < 80*time.Millisecond {
			t.Fatalf("latency not added: %v", d)
		}
		start = time.Now()
		h.wantOK(h.post("/RESTTicketing.svc/order", getOrder))
		if d := time.Since(start); d > 70*time.Millisecond {
			t.Fatalf("latency outlived times=1: %v", d)
		}
	})
	t.Run("http status for the next two calls", func(t *testing.T) {
		h.t = t
		if err := h.srv.Faults().Set(Fault{Operation: "GetOrder", HTTPStatus: 503, Times: 2}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			st, j := h.call("POST", "/RESTTicketing.svc/order", getOrder)
			if st != 503 || h.num(j, "Result") != resUnexpected {
				t.Fatalf("call %d: %d %s", i, st, compact(j))
			}
		}
		h.wantOK(h.post("/RESTTicketing.svc/order", getOrder))
	})
	t.Run("error result in a 200 body, per family", func(t *testing.T) {
		h.t = t
		f := h.srv.Faults()
		for _, ft := range []Fault{{Operation: "GetOrder", Result: 13, ExtendedResultCode: 7}, {Operation: "SeatPlan", Result: 9}, {Operation: "GetSingleBooking", Result: 2}, {Operation: "SwapSeats", Result: 1}} {
			if err := f.Set(ft); err != nil {
				t.Fatal(err)
			}
		}
		st, j := h.call("POST", "/RESTTicketing.svc/order", getOrder)
		if st != 200 || h.num(j, "Result") != 13 || h.num(j, "ExtendedResultCode") != 7 {
			t.Fatalf("ticketing: %d %s", st, compact(j))
		}
		if st, j = h.call("GET", "/RESTData.svc/cinemas/0001/sessions/1113/seat-plan", nil); st != 200 || h.num(j, "ResponseCode") != 9 {
			t.Fatalf("data: %d %s", st, compact(j))
		}
		if st, j = h.call("POST", "/RESTBooking.svc/booking", map[string]any{"CinemaId": "0001", "BookingNumber": "100001"}); st != 200 || h.num(j, "ResultCode") != 2 {
			t.Fatalf("booking: %d %s", st, compact(j))
		}
		if st, j = h.call("POST", "/cinemas/0001/bookings/BK0186A1/swap-seats", map[string]any{"swaps": []any{}}); st != 200 || h.num(j, "result") != 1 {
			t.Fatalf("camel: %d %s", st, compact(j))
		}
		f.Clear()
		h.wantOK(h.post("/RESTTicketing.svc/order", getOrder))
	})
	t.Run("dropped connection", func(t *testing.T) {
		h.t = t
		if err := h.srv.Faults().Set(Fault{Operation: "*", Drop: true, Times: 1}); err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest("GET", h.url+"/OData.svc/Cinemas", nil)
		setToken(req.Header, testToken)
		// A fresh connection: Go's client would silently retry an idempotent
		// request that failed on a reused one.
		fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
		resp, err := fresh.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("dropped call answered %d", resp.StatusCode)
		}
		h.get("/OData.svc/Cinemas")
	})
	t.Run("validation", func(t *testing.T) {
		h.t = t
		for _, ft := range []Fault{{Operation: "Nope", Drop: true}, {Operation: "GetOrder"}, {Operation: "GetOrder", HTTPStatus: 200}, {Operation: "GetOrder", Drop: true, Times: -1}} {
			if err := h.srv.Faults().Set(ft); err == nil {
				t.Fatalf("accepted %+v", ft)
			}
		}
	})
}

func TestAdminAPI(t *testing.T) {
	h := newHarness(t)
	st, j := h.call("POST", "/sandbox-admin/faults", map[string]any{"operation": "Cinemas", "httpStatus": 502, "times": 1, "completionDelay": "never"})
	if st != 200 || h.str(j, "completionDelay") != "never" || h.num(j, "faults.0.httpStatus") != 502 || h.str(j, "faults.0.operation") != "Cinemas" {
		t.Fatalf("set: %d %s", st, compact(j))
	}
	if st, _ := h.call("GET", "/OData.svc/Cinemas", nil); st != 502 {
		t.Fatalf("fault not applied: %d", st)
	}
	st, j = h.call("POST", "/sandbox-admin/faults", map[string]any{"operation": "GetOrder", "latency": "20ms"})
	if st != 200 || h.str(j, "faults.0.latency") != "20ms" {
		t.Fatalf("latency fault: %s", compact(j))
	}
	for _, bad := range []any{map[string]any{}, map[string]any{"operation": "Nope", "drop": true}, map[string]any{"completionDelay": "soon"}, "{"} {
		if st, j := h.call("POST", "/sandbox-admin/faults", bad); st != 400 || j["error"] == "" {
			t.Fatalf("bad admin body %v: %d %s", bad, st, compact(j))
		}
	}
	st, j = h.call("DELETE", "/sandbox-admin/faults", nil)
	if st != 200 || len(h.list(j, "faults")) != 0 || h.str(j, "completionDelay") != "5ms" {
		t.Fatalf("clear: %d %s", st, compact(j))
	}
	h.get("/OData.svc/Cinemas")
	h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": newID()})
	st, j = h.call("GET", "/sandbox-admin/stats", nil)
	var bookings int64 // the default world's ready-made bookings
	for _, c := range DefaultWorld(testNow).Cinemas {
		bookings += int64(len(c.Bookings))
	}
	if st != 200 || h.num(j, "calls.Cinemas") != 2 || h.num(j, "calls.GetOrder") != 1 || h.num(j, "calls.SwapSeats") != 0 || h.num(j, "bookings") != bookings {
		t.Fatalf("stats: %s", compact(j))
	}
	if h.srv.Calls("Cinemas") != 2 || h.srv.Calls("Nope") != 0 {
		t.Fatal("Calls()")
	}
	if st, _ := h.call("PUT", "/sandbox-admin/faults", nil); st != 405 {
		t.Fatalf("PUT: %d", st)
	}
}

func TestParseFault(t *testing.T) {
	ft, err := ParseFault("op=GetOrder,latency=500ms,status=503,result=13,ext=2,drop=true,times=2")
	if err != nil {
		t.Fatal(err)
	}
	want := Fault{Operation: "GetOrder", Latency: Duration(500 * time.Millisecond), HTTPStatus: 503, Result: 13, ExtendedResultCode: 2, Drop: true, Times: 2}
	if ft != want {
		t.Fatalf("got %+v", ft)
	}
	for _, bad := range []string{"op", "op=GetOrder,latency=fast", "op=GetOrder,color=red"} {
		if _, err := ParseFault(bad); err == nil || !strings.Contains(err.Error(), "fault") {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}
