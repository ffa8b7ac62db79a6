package bff_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/checkout"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

// BenchmarkPages puts an Echo hello handler and our pages side by side in one run: each page
// GET goes through the whole server (s.ServeHTTP) as a returning visitor (its session cookie,
// gzip accepted), with the upstream answered in memory (replayed, so the sandbox's own work is
// not counted). Besides ns/op and allocs/op each reports
//
//	x-hello       ns/op as a multiple of the hello handler's, measured first in this process
//	x-hello-mw    ns/op as a multiple of hello-mw's: the same hello handler mounted on our own
//	              server, behind the site's middleware chain and its compression wrapper, sent
//	              as a returning visitor (the booking page's visitor's cookies); also measured
//	              first in this process, so the rest is what the pages themselves cost
//	upstream/op   upstream calls the page made (replayed answers included)
//	store-writes/op  session store writes (a GET should make none)
//	wire-B/op     bytes of the answer's body as sent (compressed if the server compressed it)
//
// Run: go test -run '^$' -bench BenchmarkPages -benchmem ./internal/bff/
// Seat maps: session 1121 is on Saal 2 (112 seats), 1111 on Saal 1 (412 seats) of the
// sandbox's default world.
func BenchmarkPages(b *testing.B) {
	h, upstream := newBenchEnv(b)
	pages := []benchPage{
		{name: "booking", setup: benchBookingPage},
		{name: "edit", setup: benchEditPage},
		{name: "seatmap-100", setup: benchSeatMap(1121, 112)},
		{name: "seatmap-400", setup: benchSeatMap(1111, 412)},
		{name: "return-poll", setup: benchReturnPoll},
	}
	// Every visitor is set up (and each page shown once) before anything is measured; from
	// then on the upstream's answers are recorded once and replayed.
	for i := range pages {
		pages[i].visitor = newBenchVisitor(h)
		pages[i].path, pages[i].header = pages[i].setup(pages[i].visitor)
		pages[i].visitor.check(pages[i].path, pages[i].header)
	}
	upstream.replay.Store(true)
	for _, p := range pages {
		p.visitor.check(p.path, p.header) // record the upstream's answers
	}

	hello := echoHello()
	helloReq := func() { serveHello(hello) }
	// hello-mw: the hello handler on the server's own Echo (its Use chain: request id, recover,
	// metrics and log, security headers and CSP nonce, session, device, language, body limit,
	// CSRF, staff sign-in) and through s.ServeHTTP (the Compressed wrapper), as the pages are.
	h.Srv.Echo.GET(benchHelloPath, helloHandler)
	mwVisitor := pages[0].visitor
	helloMwReq := func() {
		if rec := mwVisitor.serve(benchHelloPath, nil); rec.Code != http.StatusOK {
			panic(fmt.Sprintf("hello-mw: %d", rec.Code))
		}
	}
	// The references, measured here so that they are there whatever -bench selects
	// (testing.Benchmark cannot run inside a benchmark).
	helloNs := nsPerOp(helloReq, time.Second)
	helloMwNs := nsPerOp(helloMwReq, time.Second)
	b.Run("hello", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			helloReq()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/helloNs, "x-hello")
	})
	b.Run("hello-mw", func(b *testing.B) {
		b.ReportAllocs()
		writes := h.Store.Commits.Load()
		for b.Loop() {
			helloMwReq()
		}
		n := float64(b.N)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n/helloNs, "x-hello")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n/helloMwNs, "x-hello-mw")
		b.ReportMetric(float64(h.Store.Commits.Load()-writes)/n, "store-writes/op")
	})
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			calls, writes := upstream.calls.Load(), h.Store.Commits.Load()
			var wire int
			for b.Loop() {
				rec := p.visitor.serve(p.path, p.header)
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s: status %d: %.500s", p.path, rec.Code, rec.Body.String())
				}
				wire = rec.Body.Len()
			}
			n := float64(b.N)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n/helloNs, "x-hello")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n/helloMwNs, "x-hello-mw")
			b.ReportMetric(float64(upstream.calls.Load()-calls)/n, "upstream/op")
			b.ReportMetric(float64(h.Store.Commits.Load()-writes)/n, "store-writes/op")
			b.ReportMetric(float64(wire), "wire-B/op")
		})
	}
}

// nsPerOp runs f for about d and returns its time per call.
func nsPerOp(f func(), d time.Duration) float64 {
	for i := 0; i < 100; i++ {
		f() // warm up
	}
	n, start := 0, time.Now()
	for time.Since(start) < d {
		for range 100 {
			f()
		}
		n += 100
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

// benchPage is one page of the suite: setup walks a visitor to it and returns its path and the
// headers its GET carries.
type benchPage struct {
	name    string
	setup   func(*benchVisitor) (string, http.Header)
	visitor *benchVisitor
	path    string
	header  http.Header
}

// benchHelloPath is where BenchmarkPages mounts helloHandler on the server for hello-mw; no
// route of the site's table has it.
const benchHelloPath = "/bench/hello"

func helloHandler(c echo.Context) error { return c.String(http.StatusOK, "Hello, World!") }

func echoHello() *echo.Echo {
	e := echo.New()
	e.GET("/", helloHandler)
	return e
}

// serveHello serves hello the way serve sends our pages (same request and recorder), so the
// ratio compares the handlers.
func serveHello(e *echo.Echo) {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Cookie", "session=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG")
	req.Header.Set("Accept-Encoding", "gzip")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		panic(fmt.Sprintf("hello: %d", rec.Code))
	}
}

// check GETs the page once and fails unless it answers 200.
func (v *benchVisitor) check(path string, header http.Header) {
	v.T.Helper()
	if rec := v.serve(path, header); rec.Code != http.StatusOK {
		v.T.Fatalf("GET %s: status %d: %.500s", path, rec.Code, rec.Body.String())
	}
}

func benchBookingPage(v *benchVisitor) (string, http.Header) {
	v.Find(bfftest.BkPaid1)
	return "/booking/current", nil
}

func benchEditPage(v *benchVisitor) (string, http.Header) {
	v.Find(bfftest.BkPaid2)
	v.StartEdit(v.T)
	return "/booking/edit", nil
}

// benchSeatMap chooses one adult ticket for a session and shows its seat page; seats is the
// auditorium's size, checked against the page.
func benchSeatMap(session, seats int) func(*benchVisitor) (string, http.Header) {
	return func(v *benchVisitor) (string, http.Header) {
		page := fmt.Sprintf("/whats-on/0001/%d", session)
		resp, body := v.Post(page, page, bfftest.Url1Adult())
		bfftest.ExpectRedirect(v.T, resp, body, "/checkout/seats")
		if got := v.Page("/checkout/seats", http.StatusOK).Find(`[data-testid="seatmap"] input[name="seat"]`).Length(); got != seats {
			v.T.Fatalf("session %d: the seat map shows %d seat inputs (auditorium of %d)", session, got, seats)
		}
		return "/checkout/seats", nil
	}
}

// benchReturnPoll buys a ticket up to the payment provider, pays there, and returns the
// return page's htmx poll (the connector never completes the order, so it keeps waiting).
func benchReturnPoll(v *benchVisitor) (string, http.Header) {
	v.BuyUpToSummary("1112", bfftest.Url1Adult())
	_, landing := v.Get(v.ActAtProvider(v.PressPay(), "pay"))
	poll, ok := v.Doc(landing).Find(`[data-testid="poller"]`).Attr("hx-get")
	if !ok {
		v.T.Fatalf("the return page does not poll: %s", landing)
	}
	// The page's own poll names what it shows (checkoutview.PollShownParam) and is held until the order's next
	// read (TestBenchConfirmationDelay measures that); without it the poll is answered at once
	// from the poller's last read, which is the server's work per poll.
	u, err := url.Parse(poll)
	if err != nil {
		v.T.Fatal(err)
	}
	q := u.Query()
	q.Del(checkoutview.PollShownParam)
	u.RawQuery = q.Encode()
	// A slow run must not reach the point where the site gives the payment up.
	old := checkout.GiveUpAfter
	checkout.GiveUpAfter = time.Hour
	v.T.Cleanup(func() { checkout.GiveUpAfter = old })
	return u.String(), http.Header{"Hx-Request": {"true"}}
}
