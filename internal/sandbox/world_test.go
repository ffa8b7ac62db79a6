package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

func TestLoadWorldExample(t *testing.T) {
	f, err := os.Open("testdata/world.example.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := LoadWorld(f, testNow)
	if err != nil {
		t.Fatalf("LoadWorld: %v", err)
	}
	c := w.Cinemas[0]
	if got := c.Sessions[0].Showtime; !got.Equal(testNow.Add(2 * time.Hour)) {
		t.Fatalf("startsIn: %v", got)
	}
	if got := c.Sessions[1].Showtime.UTC(); got != time.Date(2026, 11, 23, 18, 30, 0, 0, time.UTC) {
		t.Fatalf("day+at: %v", got)
	}
	if got := c.Bookings[0].CreatedAt; !got.Equal(testNow.Add(-48 * time.Hour)) {
		t.Fatalf("createdAgo: %v", got)
	}
	h := newHarness(t, func(o *Options) { o.World = w })
	b := h.booking("0101", 300001)
	// Created two days ago: after the 2026-01-01 rule, so 75 per ticket.
	if h.num(b, "Booking.TotalValueCents") != 1100+800+150 || h.str(b, "Booking.Payments.0.BankReference") != "pi_seed300001" {
		t.Fatalf("example booking: %s", compact(b))
	}
	unpaid := h.booking("0101", 300002)
	// The couple package (2000) with two fees of 75, and a popcorn (600).
	if h.num(unpaid, "Booking.TotalValueCents") != 2000+150+600 || h.num(unpaid, "Booking.Tickets.1.PackageGroupNumber") != 1 {
		t.Fatalf("unpaid example: %s", compact(unpaid))
	}
	plan := h.get("/RESTData.svc/cinemas/0101/sessions/5002/seat-plan")
	if h.num(plan, "SeatLayoutData.Areas.1.Rows.1.Seats.1.SeatStyle") != styleSofaMiddle || len(h.list(plan, "SeatLayoutData.Areas.1.Rows.1.Seats.0.SeatsInGroup")) != 3 {
		t.Fatalf("sofa of three: %s", compact(plan))
	}
	if h.num(plan, "SeatLayoutData.Areas.1.Top") != 5 || h.num(plan, "SeatLayoutData.Areas.0.Rows.0.Seats.0.OriginalStatus") != seatSpecial {
		t.Fatalf("layout: %s", compact(plan))
	}
	if h.seatStatus("0101", 5002, "F1") != seatSold || h.seatStatus("0101", 5002, "D4") != seatReserved {
		t.Fatal("example bookings not in the seat plan")
	}
}

// The built-in world is the same structure as the fixture: it survives a
// round trip through JSON.
func TestDefaultWorldRoundTrip(t *testing.T) {
	w := DefaultWorld(testNow)
	data, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	back, err := LoadWorld(bytes.NewReader(data), testNow)
	if err != nil {
		t.Fatalf("LoadWorld of the default world: %v", err)
	}
	again, _ := json.Marshal(back)
	if !bytes.Equal(data, again) {
		t.Fatal("default world changes in a JSON round trip")
	}
	if _, err := New(Options{World: back, Payments: payprovider.New(payprovider.Options{PublicURL: "http://x/pay"})}); err != nil {
		t.Fatalf("New with round-tripped world: %v", err)
	}
}

func TestWorldErrors(t *testing.T) {
	base := func() map[string]any {
		return map[string]any{
			"films": []any{map[string]any{"id": "F1", "title": "T"}},
			"cinemas": []any{map[string]any{
				"id": "0001", "name": "C", "currencyCode": "EUR", "timeZone": "UTC",
				"areaCategories": []any{map[string]any{"code": "S", "description": "Standard"}},
				"screens":        []any{map[string]any{"number": 1, "name": "S1", "areas": []any{map[string]any{"number": 1, "areaCategoryCode": "S", "rows": []any{map[string]any{"name": "A", "seats": "ssss"}}}}}},
				"ticketTypes":    []any{map[string]any{"code": "0001", "areaCategoryCode": "S", "description": "Adult", "priceInCents": 1000}},
				"sessions":       []any{map[string]any{"id": 1, "filmId": "F1", "screenNumber": 1, "startsIn": "1h"}},
				"bookings":       []any{},
			}},
		}
	}
	cinema := func(m map[string]any) map[string]any { return m["cinemas"].([]any)[0].(map[string]any) }
	cases := []struct {
		name   string
		mutate func(map[string]any)
		load   bool // the error is found by LoadWorld (else by New)
		want   string
	}{
		{"unknown field", func(m map[string]any) { m["colour"] = "red" }, true, "unknown field"},
		{"two time forms", func(m map[string]any) {
			cinema(m)["sessions"].([]any)[0].(map[string]any)["showtime"] = "2030-01-01T00:00:00Z"
		}, true, "exactly one"},
		{"bad duration", func(m map[string]any) { cinema(m)["sessions"].([]any)[0].(map[string]any)["startsIn"] = "soon" }, true, "duration"},
		{"bad zone", func(m map[string]any) { cinema(m)["timeZone"] = "Mars/Olympus" }, true, "time zone"},
		{"member without a PIN", func(m map[string]any) {
			m["loyaltyMembers"] = []any{map[string]any{"cardNumber": "7100000000000009", "name": "No Pin", "pointsBalance": 100}}
		}, true, "has no pin"},
		{"bad seat char", func(m map[string]any) {
			cinema(m)["screens"].([]any)[0].(map[string]any)["areas"].([]any)[0].(map[string]any)["rows"] = []any{map[string]any{"name": "A", "seats": "s?s"}}
		}, false, "unknown seat character"},
		{"open sofa", func(m map[string]any) {
			cinema(m)["screens"].([]any)[0].(map[string]any)["areas"].([]any)[0].(map[string]any)["rows"] = []any{map[string]any{"name": "A", "seats": "[=s"}}
		}, false, "sofa"},
		{"unknown film", func(m map[string]any) { cinema(m)["sessions"].([]any)[0].(map[string]any)["filmId"] = "F9" }, false, "unknown film"},
		{"seat booked twice", func(m map[string]any) {
			bk := func(n int, id string) map[string]any {
				return map[string]any{"number": n, "id": id, "sessionId": 1, "tickets": []any{map[string]any{"ticketTypeCode": "0001", "seats": []any{"A1"}}}}
			}
			cinema(m)["bookings"] = []any{bk(1, "B1"), bk(2, "B2")}
		}, false, "booked twice"},
		{"paid without payment", func(m map[string]any) {
			cinema(m)["bookings"] = []any{map[string]any{"number": 1, "id": "B1", "sessionId": 1, "paid": true, "tickets": []any{map[string]any{"ticketTypeCode": "0001", "seats": []any{"A1"}}}}}
		}, false, "payment"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := base()
			tc.mutate(m)
			data, _ := json.Marshal(m)
			w, err := LoadWorld(bytes.NewReader(data), testNow)
			if err == nil && !tc.load {
				_, err = New(Options{World: w, Payments: payprovider.New(payprovider.Options{PublicURL: "http://x/pay"})})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error with %q, got %v", tc.want, err)
			}
		})
	}
	if _, err := New(Options{}); err == nil {
		t.Fatal("New without Payments")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestMain_Standalone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Main(ctx, []string{"sandbox", "-addr", "127.0.0.1:0", "-token", "T", "-completion-delay", "never", "-pay-key", "K", "-fault", "op=Films,status=503,times=1", "-fault", "op=*,latency=30ms"}, &out)
	}()
	re := regexp.MustCompile(`sandbox ticketing API: (http://127\.0\.0\.1:\d+)/`)
	var base string
	wants := []string{"100001", "BK0186A1", "paid1@example.com", "feechange@example.com", "soon@example.com", "started@example.com", "6000000000000001", "7000000000000001  PIN 1815", "7000000000000002  PIN 1906", "/v1/... for stripe-go; key K)"}
	// The address comes first and the ready-made bookings after it: wait for both.
	eventually(t, "Main to print its address and its bookings", func() bool {
		m := re.FindStringSubmatch(out.String())
		if m != nil {
			base = m[1]
		}
		if m == nil {
			return false
		}
		for _, w := range wants {
			if !strings.Contains(out.String(), w) {
				return false
			}
		}
		return true
	})
	for _, want := range wants {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	get := func(path string, header map[string]string) int {
		req, _ := http.NewRequest("GET", base+path, nil)
		for k, v := range header {
			req.Header[k] = []string{v} // raw names, written as given
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	began := time.Now()
	if st := get("/OData.svc/Cinemas", map[string]string{"connectapitoken": "T"}); st != 200 {
		t.Fatalf("API: %d", st)
	}
	if took := time.Since(began); took < 30*time.Millisecond {
		t.Fatalf("-fault op=*,latency=30ms: the call took %v", took)
	}
	if st := get("/OData.svc/Cinemas", map[string]string{"Connectapitoken": "T"}); st != 403 {
		t.Fatalf("Main does not check the raw token header name: %d", st)
	}
	if st := get("/OData.svc/ScheduledFilms", map[string]string{"connectapitoken": "T"}); st != 503 {
		t.Fatalf("fault flag: %d", st)
	}
	if st := get("/pay/v1/payment_intents/pi_seed100001", map[string]string{"Authorization": "Bearer K"}); st != 200 {
		t.Fatalf("provider under /pay: %d", st)
	}
	if st := get("/v1/payment_intents/pi_seed100001", map[string]string{"Authorization": "Bearer K"}); st != 200 {
		t.Fatalf("provider API at the root: %d", st)
	}
	if st := get("/sandbox-admin/faults", map[string]string{"connectapitoken": "T"}); st != 200 {
		t.Fatalf("admin: %d", st)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Main: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Main did not stop")
	}
	if err := Main(context.Background(), []string{"-webhook-url", "/relative"}, io.Discard); err == nil {
		t.Fatal("relative -webhook-url accepted")
	}
	if err := Main(context.Background(), []string{"-completion-delay", "whenever"}, io.Discard); err == nil {
		t.Fatal("bad flag accepted")
	}
	if err := Main(context.Background(), []string{"-fixtures", "testdata/nope.json"}, io.Discard); err == nil {
		t.Fatal("missing fixture accepted")
	}
}
