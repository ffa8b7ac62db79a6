package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

const (
	checkToken  = "check-token-7f3a"
	checkSecret = "tenant-secret-9b2c" // an extra header's value: never printed
)

// startCheckSandbox serves the sandbox ticketing API on a test server, as `web sandbox` does.
func startCheckSandbox(t *testing.T) (string, *sandbox.World) {
	t.Helper()
	url, world, _ := startSandboxServer(t)
	return url, world
}

// startSandboxServer serves the sandbox as `web sandbox` does: the ticketing API at the root
// (the listener is wrapped so the sandbox checks the token header's raw lower-case name), the
// payment provider under /pay and its Stripe API at /v1/ too (for stripe-go).
func startSandboxServer(t *testing.T) (string, *sandbox.World, *sandbox.Server) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	srv.Listener = sandbox.WrapListener(srv.Listener)
	srv.Config.ConnContext = sandbox.ConnContext
	srv.Start()
	t.Cleanup(srv.Close)
	prov := payprovider.New(payprovider.Options{PublicURL: srv.URL + "/pay"})
	world := sandbox.DefaultWorld(time.Now())
	sb, err := sandbox.New(sandbox.Options{Token: checkToken, World: world, Payments: prov})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	mux.Handle("/pay/", http.StripPrefix("/pay", prov.Handler()))
	mux.Handle("/v1/", prov.Handler())
	mux.Handle("/", sb.Handler())
	return srv.URL, world, sb
}

// checkRun runs `web check-upstream args...` in-process with an empty environment.
func checkRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, append([]string{"check-upstream"}, args...), func(string) string { return "" }, &out)
	return out.String(), err
}

func TestCheckUpstreamAgainstSandbox(t *testing.T) {
	url, world := startCheckSandbox(t)
	if len(world.Cinemas) < 2 || len(world.Cinemas[1].Bookings) == 0 {
		t.Fatal("the default world changed: want two cinemas, the second with a booking")
	}
	second := world.Cinemas[1]
	booking := second.Bookings[0]
	base := []string{"-upstream-url", url, "-upstream-token", checkToken, "-upstream-header", "X-Tenant: " + checkSecret}

	cases := []struct {
		name    string
		args    []string
		wantErr string   // exact message; "" for success
		want    []string // in the output
		notWant []string
	}{
		{
			name: "every cinema",
			want: append(cinemaNames(world),
				"Cinemas: 2", "Sessions at "+world.Cinemas[0].ID, "Sessions at "+second.ID, "today, ",
				"Seat plan of session", " in all: ", "area categories: ", "Ticket types of session",
				world.Cinemas[0].TicketTypes[0].Description, "Extra headers: X-Tenant (values not shown)",
				"Collections: recorded by the site only (no -collection-path: nothing is sent upstream)",
				"OK: everything check-upstream read was understood."),
		},
		{
			name: "collection route configured",
			args: []string{"-collection-path", "POST Custom.svc/tickets/printed"},
			want: []string{"Collections: recorded by the site and sent to POST Custom.svc/tickets/printed (-collection-path; not checked, it writes)", "OK: "},
		},
		{
			name: "one cinema and a booking, e-mail in other case",
			args: []string{"-cinema", second.ID, "-booking", fmt.Sprint(booking.Number), "-email", strings.ToUpper(booking.CustomerEmail)},
			want: []string{
				"Sessions at " + second.ID, fmt.Sprintf("Booking %d at %s", booking.Number, second.ID),
				"e-mail: matches", "paid: yes", "seats on the plan: all ", "placed by their labels", "OK: ",
			},
			notWant: []string{"Sessions at " + world.Cinemas[0].ID},
		},
		{
			name:    "booking with another e-mail",
			args:    []string{"-cinema", second.ID, "-booking", fmt.Sprint(booking.Number), "-email", "someone.else@example.com"},
			wantErr: fmt.Sprintf("the e-mail of booking %d does not match -email: the site would answer \"booking not found\"", booking.Number),
			want:    []string{"e-mail: does not match", "1 problem(s):"},
		},
		{
			name:    "unknown booking",
			args:    []string{"-cinema", second.ID, "-booking", "987654321"},
			wantErr: "the ticketing API knows no booking 987654321 at cinema " + second.ID + " (GetSingleBooking: not found)",
		},
		{
			name:    "unknown cinema",
			args:    []string{"-cinema", "9999"},
			wantErr: "cinema 9999 (-cinema) is not among the cinemas the ticketing API listed (" + world.Cinemas[0].ID + ", " + second.ID + ")",
		},
		{
			name:    "wrong token",
			args:    []string{"-upstream-token", "wrong-token-5e1d"},
			wantErr: "the ticketing API refused the token (HTTP 403)",
			notWant: []string{"wrong-token-5e1d", "Cinemas:"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := checkRun(t, append(append([]string{}, base...), tc.args...)...)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("error %q, want none; output:\n%s", err, out)
			}
			if tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Fatalf("error %v\nwant      %q; output:\n%s", err, tc.wantErr, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range append(tc.notWant, checkToken, checkSecret) {
				if strings.Contains(out, w) || (err != nil && strings.Contains(err.Error(), w)) {
					t.Errorf("output or error shows %q:\n%s", w, out)
				}
			}
		})
	}
}

func cinemaNames(w *sandbox.World) []string {
	var out []string
	for _, c := range w.Cinemas {
		out = append(out, c.ID+"  "+c.Name+": time zone "+c.TimeZone)
	}
	return out
}

// TestCheckUpstreamFailures: every way the ticketing API can fail ends in one plain sentence.
func TestCheckUpstreamFailures(t *testing.T) {
	answer := func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	cases := []struct {
		name    string
		handler http.HandlerFunc // nil: nobody listens at closedURL
		want    string           // exact, with {url} for the server's URL
		prefix  bool             // want is a prefix of the message
	}{
		{"garbage instead of JSON", answer(200, "<html>Gateway says hello</html>"),
			"the ticketing API answered ListCinemas with a reply we could not read (not JSON at byte 1)", false},
		{"a field of the wrong type", answer(200, `{"value":[{"ID":"0001","Name":{"de":"Kino"}}]}`),
			"the ticketing API answered ListCinemas with a reply we could not read (field value.Name)", false},
		{"token refused", answer(403, `{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"bad token"}`),
			"the ticketing API refused the token (HTTP 403)", false},
		{"token missing", answer(401, `{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"no token"}`),
			"the ticketing API refused the token (HTTP 401)", false},
		{"wrong path", answer(404, `{"Result":4}`),
			"the ticketing API has no ListCinemas at the configured path (HTTP 404): check -upstream-url and -upstream-paths", false},
		{"server error", answer(503, "down for maintenance"),
			"the ticketing API could not be reached at {url}: ListCinemas answered HTTP 503: down for maintenance", false},
		{"nobody listening", nil, "the ticketing API could not be reached at {url}: dial tcp ", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := closedURL
			if tc.handler != nil {
				srv := httptest.NewServer(tc.handler)
				defer srv.Close()
				url = srv.URL
			}
			out, err := checkRun(t, "-upstream-url", url, "-upstream-token", checkToken)
			want := strings.ReplaceAll(tc.want, "{url}", url)
			switch {
			case err == nil:
				t.Fatalf("no error; output:\n%s", out)
			case tc.prefix && !strings.HasPrefix(err.Error(), want):
				t.Fatalf("error %q\nwant prefix %q", err, want)
			case !tc.prefix && err.Error() != want:
				t.Fatalf("error %q\nwant       %q", err, want)
			case strings.Contains(err.Error(), "\n"):
				t.Fatalf("error is not one line: %q", err)
			case strings.Contains(out, checkToken):
				t.Fatalf("output shows the token:\n%s", out)
			}
		})
	}
}

// fakeTicketing speaks the real wire with the optional fields left out: cinemas without
// TimeZoneId or CurrencyCode (or with a Windows or unknown zone), a session whose film is not
// in ScheduledFilms, a booking without IsPaid.
func fakeTicketing(t *testing.T) *httptest.Server {
	t.Helper()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().In(berlin)
	var sessions []string
	for i, day := range []time.Time{today, today.AddDate(0, 0, 1)} {
		d := day.Format("2006-01-02")
		sessions = append(sessions,
			fmt.Sprintf(`{"ID":"0001-10%d1","CinemaId":"0001","SessionId":"10%d1","ScheduledFilmId":"HO1","Showtime":"%sT20:30:00","SessionBusinessDate":"%sT00:00:00","ScreenName":"Saal 1","SeatsAvailable":1}`, i, i, d, d),
			fmt.Sprintf(`{"ID":"0001-10%d2","CinemaId":"0001","SessionId":"10%d2","ScheduledFilmId":"HO-GONE","Showtime":"%sT22:00:00","SessionBusinessDate":"%sT00:00:00","ScreenName":"Saal 1","SeatsAvailable":1}`, i, i, d, d))
	}
	plan := `{"ResponseCode":0,"ErrorDescription":null,"SeatLayoutData":{
		"AreaCategories":[{"AreaCategoryCode":"0000000001","Name":"Standard"}],
		"Areas":[{"Number":1,"AreaCategoryCode":"0000000001","Description":"Stalls","NumberOfSeats":2,"IsAllocatedSeating":true,"RowCount":1,"ColumnCount":2,
		 "Rows":[{"PhysicalName":"A","Seats":[
		   {"Position":{"AreaNumber":1,"RowIndex":0,"ColumnIndex":0},"Id":"1","Status":0,"OriginalStatus":0,"SeatStyle":0},
		   {"Position":{"AreaNumber":1,"RowIndex":0,"ColumnIndex":1},"Id":"2","Status":1,"OriginalStatus":0,"SeatStyle":0}]}]}]}}`
	mux := http.NewServeMux()
	json := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("connectapitoken") != checkToken {
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprint(w, `{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"token"}`)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("GET /OData.svc/Cinemas", json(`{"value":[
		{"ID":"0001","Name":"Kino Eins"},
		{"ID":"0002","Name":"Kino Zwei","TimeZoneId":"GMT Standard Time","CurrencyCode":"GBP"},
		{"ID":"0003","Name":"Kino Drei","TimeZoneId":"Mars/Olympus_Mons","CurrencyCode":"EUR"}]}`))
	mux.HandleFunc("GET /OData.svc/ScheduledFilms", json(`{"value":[{"ID":"0001-HO1","ScheduledFilmId":"HO1","CinemaId":"0001","Title":"Long Night, The","RunTime":"118"}]}`))
	mux.HandleFunc("GET /OData.svc/Sessions", func(w http.ResponseWriter, r *http.Request) {
		body := `{"value":[]}`
		if strings.Contains(r.URL.Query().Get("$filter"), "'0001'") {
			body = `{"value":[` + strings.Join(sessions, ",") + `]}`
		}
		json(body)(w, r)
	})
	mux.HandleFunc("GET /RESTData.svc/cinemas/0001/sessions/{id}/seat-plan", json(plan))
	mux.HandleFunc("GET /RESTData.svc/cinemas/0001/sessions/{id}/tickets", json(`{"ResponseCode":0,"ErrorDescription":null,"Tickets":[
		{"TicketTypeCode":"0001","AreaCategoryCode":"0000000001","Description":"Adult","PriceInCents":1250}]}`))
	mux.HandleFunc("POST /RESTBooking.svc/booking", json(`{"ResultCode":0,"ErrorDescription":null,"Booking":{
		"BookingNumber":123456,"BookingId":"BK1","VistaTransNumber":9,"TotalValueCents":1250,"CustomerEmail":"Ada@Example.com",
		"Tickets":[{"TicketTypeCode":"0001","TicketSequenceNumber":1,"SessionId":1001,"PriceInCents":1250,"Description":"Adult","PackageGroupNumber":0,"SeatRowId":"A","SeatNumber":"2"}],
		"Payments":[{"PaymentId":"1","OrderPaymentAmount":1250,"PaymentTenderCategory":"CREDIT","CardType":"VISA","CardNumberMasked":"************4242"}]}}`))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestCheckUpstreamSaysWhatIsMissing: fields the real API may leave out are named, with what
// the site does instead, and the check still passes.
func TestCheckUpstreamSaysWhatIsMissing(t *testing.T) {
	srv := fakeTicketing(t)
	out, err := checkRun(t, "-upstream-url", srv.URL, "-upstream-token", checkToken, "-booking", "123456", "-email", "ada@example.COM")
	if err != nil {
		t.Fatalf("error %v; output:\n%s", err, out)
	}
	eur := cinema.NewMoney(1250, "EUR").String() // as the site writes it
	for _, w := range []string{
		"0001  Kino Eins: time zone not sent, using Europe/Berlin; currency not sent, using EUR",
		"0002  Kino Zwei: time zone Europe/London; currency GBP",
		`0003  Kino Drei: time zone "Mars/Olympus_Mons" not understood, using Europe/Berlin; currency EUR`,
		"Sessions at 0001 Kino Eins (times in Europe/Berlin):",
		"Long Night, The · Saal 1 · session 1001",
		"(film title not sent; film HO-GONE)",
		"note: 2 sessions without film title",
		"20:30 C", // CET or CEST: the cinema's zone, not the machine's
		"area 1 Stalls (Standard): 1 row, 2 seats",
		"seats: 2 in all: 1 free, 1 taken, 0 held, 0 unavailable",
		"0001   Adult",
		eur,
		"paid: not said; the BFF will offer actions and let the ticketing API decide",
		"e-mail: matches",
		"#1 Adult " + eur + ", row A seat 2",
		eur + ", CREDIT, VISA, ************4242",
		"seats on the plan: all 1 ticket placed by their labels",
		"OK: everything check-upstream read was understood.",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

func TestCheckUpstreamFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-email", "a@example.com"}, "check-upstream: -email needs -booking"},
		{[]string{"-booking", "-3"}, "check-upstream: -booking must be a positive booking number"},
	} {
		_, err := checkRun(t, tc.args...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestCheckUpstreamMissingNames: check-upstream lists, per language, the names it read that the
// operator's catalog (-names-file) lacks, and none that it has.
func TestCheckUpstreamMissingNames(t *testing.T) {
	url, _ := startCheckSandbox(t)
	base := []string{"-upstream-url", url, "-upstream-token", checkToken}
	file := filepath.Join(t.TempDir(), "names.json")
	catalog := `{"ticketTypes": {"0001": {"en": "Adult", "de": "Erwachsene"}, "0002": {"en": "Child"}},
	  "areaCategories": {"0000000001": {"en": "Standard", "de": "Standard"}},
	  "areas": {"0000000001": {"en": "Stalls", "de": "Parkett"}},
	  "ratings": {"0": {"en": "FSK 0", "de": "FSK 0"}, "6": {"en": "FSK 6", "de": "FSK 6"}, "12": {"en": "FSK 12", "de": "FSK 12"}, "16": {"en": "FSK 16", "de": "FSK 16"}}}`
	if err := os.WriteFile(file, []byte(catalog), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{
			name: "catalog with gaps",
			args: []string{"-names-file", file},
			want: []string{"The cinema's names (-names-file):",
				"de: ", " names without an entry (shown as sent):", `ticket type 0002 at 0001: "Child"`, `ticket type 0003 at 0001: "Senior"`,
				"en: ", `ticket type 0004 at 0001: "Couple package"`},
			notWant: []string{`ticket type 0001 at 0001`, `area category 0000000001`, `area of category 0000000001`, "rating "},
		},
		{
			name: "no catalog",
			want: []string{"no catalog: every name is shown as the ticketing API sends it",
				`de: `, `ticket type 0001 at 0001: "Adult"`, `area of category 0000000001 at 0001: "Stalls"`, `rating 12 at 0001: "12"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := checkRun(t, append(base, tt.args...)...)
			if err != nil {
				t.Fatalf("check-upstream: %v\n%s", err, out)
			}
			section := out[strings.Index(out, "The cinema's names"):]
			for _, w := range tt.want {
				if !strings.Contains(section, w) {
					t.Errorf("names section lacks %q:\n%s", w, section)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(section, w) {
					t.Errorf("names section has %q:\n%s", w, section)
				}
			}
			// Child has an English name but no German one: listed for de only.
			en, de, _ := strings.Cut(section[strings.Index(section, "  en: "):], "  de: ")
			if len(tt.args) > 0 && (strings.Contains(en, `"Child"`) || !strings.Contains(de, `"Child"`)) {
				t.Errorf("Child listed wrongly per language:\nen: %s\nde: %s", en, de)
			}
		})
	}
	// A bad catalog stops check-upstream at once, naming the file and the entry.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"areas": {"X": {"fr": "Orchestre"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := checkRun(t, append(base, "-names-file", bad)...); err == nil || !strings.Contains(err.Error(), `areas["X"]: language "fr"`) {
		t.Errorf("bad catalog: %v", err)
	}
}
