package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// testNow is the fixed start of every test world.
var testNow = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

const testToken = "test-token"

// harness runs a sandbox and a payment provider behind one real HTTP server,
// the way Main mounts them (with the raw token header check on).
type harness struct {
	t      *testing.T
	srv    *Server
	pay    *payprovider.Provider
	clock  *testclock.Clock
	url    string
	client *http.Client
}

type harnessOption func(*Options)

func withCompletionDelay(d time.Duration) harnessOption {
	return func(o *Options) { o.CompletionDelay = d }
}

func newHarness(t *testing.T, opts ...harnessOption) *harness {
	t.Helper()
	clock := testclock.New(testNow)
	h := &harness{t: t, clock: clock}
	mux := http.NewServeMux()
	ts := newRawHeaderServer(t, mux)
	h.url = ts.URL
	h.pay = payprovider.New(payprovider.Options{PublicURL: ts.URL + "/pay", APIKey: "test-pay-key", Now: clock.Now})
	o := Options{Token: testToken, Clock: clock, Payments: h.pay, CompletionDelay: 5 * time.Millisecond}
	for _, fn := range opts {
		fn(&o)
	}
	srv, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(srv.Close)
	h.srv = srv
	mux.Handle("/pay/", http.StripPrefix("/pay", h.pay.Handler()))
	mux.Handle("/", srv.Handler())
	h.client = &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return h
}

// newRawHeaderServer starts an httptest server whose connections record the
// raw header names, the way Serve does for Main.
func newRawHeaderServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewUnstartedServer(h)
	ts.Listener = WrapListener(ts.Listener)
	ts.Config.ConnContext = ConnContext
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

// setToken puts the token header under its exact lower-case raw name (Go's
// Header.Set would write "Connectapitoken", which the sandbox refuses); ""
// removes it.
func setToken(hd http.Header, v string) {
	delete(hd, http.CanonicalHeaderKey(tokenHeader))
	delete(hd, tokenHeader)
	if v != "" {
		hd[tokenHeader] = []string{v}
	}
}

// J is a decoded JSON object; paths like "Order.Sessions.0.Tickets.1.Id"
// read into it with the exact wire names.
type J map[string]any

func (h *harness) raw(method, path string, body any, header map[string]string) (*http.Response, []byte) {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			h.t.Fatalf("marshal: %v", err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, h.url+path, rd)
	if err != nil {
		h.t.Fatalf("request: %v", err)
	}
	setToken(req.Header, testToken)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		switch {
		case k == tokenHeader:
			setToken(req.Header, v)
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("read %s: %v", path, err)
	}
	return resp, data
}

// call makes an API call and decodes the JSON answer.
func (h *harness) call(method, path string, body any) (int, J) {
	h.t.Helper()
	resp, data := h.raw(method, path, body, nil)
	var j J
	if err := json.Unmarshal(data, &j); err != nil {
		h.t.Fatalf("%s %s: answer is not a JSON object (%d): %s", method, path, resp.StatusCode, data)
	}
	return resp.StatusCode, j
}

func (h *harness) post(path string, body any) J {
	h.t.Helper()
	_, j := h.call(http.MethodPost, path, body)
	return j
}

func (h *harness) get(path string) J {
	h.t.Helper()
	_, j := h.call(http.MethodGet, path, nil)
	return j
}

func lookupPath(j any, path string) (any, bool) {
	cur := j
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case J:
			v, ok := c[part]
			if !ok {
				return nil, false
			}
			cur = v
		case map[string]any:
			v, ok := c[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func (h *harness) val(j J, path string) any {
	h.t.Helper()
	v, ok := lookupPath(j, path)
	if !ok {
		h.t.Fatalf("no %s in %s", path, compact(j))
	}
	return v
}

func (h *harness) num(j J, path string) int64 {
	h.t.Helper()
	v := h.val(j, path)
	f, ok := v.(float64)
	if !ok {
		h.t.Fatalf("%s is %T, not a number, in %s", path, v, compact(j))
	}
	return int64(f)
}

func (h *harness) str(j J, path string) string {
	h.t.Helper()
	v := h.val(j, path)
	s, ok := v.(string)
	if !ok {
		h.t.Fatalf("%s is %T, not a string, in %s", path, v, compact(j))
	}
	return s
}

func (h *harness) list(j J, path string) []any {
	h.t.Helper()
	v := h.val(j, path)
	l, ok := v.([]any)
	if !ok {
		h.t.Fatalf("%s is %T, not an array, in %s", path, v, compact(j))
	}
	return l
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 2000 {
		return string(b[:2000]) + "..."
	}
	return string(b)
}

// wantOK fails unless a ticketing answer has Result 0 and ExtendedResultCode 0.
func (h *harness) wantOK(j J) {
	h.t.Helper()
	if h.num(j, "Result") != 0 || h.num(j, "ExtendedResultCode") != 0 {
		h.t.Fatalf("want success, got %s", compact(j))
	}
}

func (h *harness) wantCodes(j J, result, ext int64) {
	h.t.Helper()
	if h.num(j, "Result") != result || h.num(j, "ExtendedResultCode") != ext {
		h.t.Fatalf("want Result %d / ExtendedResultCode %d, got %s", result, ext, compact(j))
	}
	if _, ok := j["ErrorDescription"].(string); !ok {
		h.t.Fatalf("refusal without ErrorDescription: %s", compact(j))
	}
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// seat is a seat request by label, resolved against the default world's
// screens so tests read like a seat map.
func (h *harness) seat(sessionID int, label string) map[string]any {
	h.t.Helper()
	ss := h.srv.sessions[sessionID]
	idx, ok := ss.screen.byLabel[label]
	if !ok {
		h.t.Fatalf("no seat %s in session %d", label, sessionID)
	}
	d := ss.screen.seats[idx]
	return map[string]any{"AreaCategoryCode": d.area.category.Code, "AreaNumber": d.pos.area, "RowIndex": d.pos.row, "ColumnIndex": d.pos.col}
}

func (h *harness) camelSeat(sessionID int, label string) map[string]any {
	s := h.seat(sessionID, label)
	return map[string]any{"areaNumber": s["AreaNumber"], "rowIndex": s["RowIndex"], "columnIndex": s["ColumnIndex"]}
}

// seatStatus reads one seat's Status from the seat-plan endpoint.
func (h *harness) seatStatus(cinemaID string, sessionID int, label string) int64 {
	h.t.Helper()
	plan := h.get(fmt.Sprintf("/RESTData.svc/cinemas/%s/sessions/%d/seat-plan", cinemaID, sessionID))
	want := h.seat(sessionID, label)
	for _, a := range h.list(plan, "SeatLayoutData.Areas") {
		for _, r := range a.(map[string]any)["Rows"].([]any) {
			for _, s := range r.(map[string]any)["Seats"].([]any) {
				sm := s.(map[string]any)
				p := sm["Position"].(map[string]any)
				if int(p["AreaNumber"].(float64)) == want["AreaNumber"] && int(p["RowIndex"].(float64)) == want["RowIndex"] && int(p["ColumnIndex"].(float64)) == want["ColumnIndex"] {
					return int64(sm["Status"].(float64))
				}
			}
		}
	}
	h.t.Fatalf("seat %s not in the seat plan", label)
	return -1
}

// addTickets starts or extends an order with tickets on chosen seats.
func (h *harness) addTickets(id, cinemaID string, sessionID int, codes []string, seats ...string) J {
	h.t.Helper()
	var tts []map[string]any
	for _, c := range codes {
		tts = append(tts, map[string]any{"TicketTypeCode": c})
	}
	body := map[string]any{"UserSessionId": id, "CinemaId": cinemaID, "SessionId": strconv.Itoa(sessionID), "TicketTypes": tts, "BookingMode": 0, "ReturnOrder": true}
	if len(seats) > 0 {
		var sel []map[string]any
		for _, s := range seats {
			sel = append(sel, h.seat(sessionID, s))
		}
		body["SelectedSeats"] = sel
	}
	return h.post("/RESTTicketing.svc/order/tickets", body)
}

func (h *harness) booking(cinemaID string, number int64) J {
	h.t.Helper()
	j := h.post("/RESTBooking.svc/booking", map[string]any{"CinemaId": cinemaID, "BookingNumber": strconv.FormatInt(number, 10)})
	if h.num(j, "ResultCode") != 0 {
		h.t.Fatalf("GetSingleBooking %s/%d: %s", cinemaID, number, compact(j))
	}
	return j
}

// seatLabels lists "F11"-style labels of an order answer's tickets.
func (h *harness) seatLabels(j J, prefix string) []string {
	h.t.Helper()
	var out []string
	for _, s := range h.list(j, prefix+"Sessions") {
		for _, t := range s.(map[string]any)["Tickets"].([]any) {
			out = append(out, t.(map[string]any)["SeatData"].(string))
		}
	}
	return out
}

// payAtProvider presses a button on the hosted checkout page like a browser
// would and returns the redirect target.
func (h *harness) payAtProvider(redirectURL, action string) *url.URL {
	h.t.Helper()
	resp, err := h.client.PostForm(redirectURL, url.Values{"action": {action}})
	if err != nil {
		h.t.Fatalf("checkout %s: %v", action, err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("checkout %s: status %d", action, resp.StatusCode)
	}
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		h.t.Fatalf("checkout redirect: %v", err)
	}
	return u
}

// eventually polls fn until it is true or a deadline passes.
func eventually(t *testing.T, what string, fn func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if fn() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}
