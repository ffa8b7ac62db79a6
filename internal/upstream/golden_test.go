package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseHeadersRefusesBadLinesWithoutEchoingValues(t *testing.T) {
	for _, line := range []string{"no colon secret123", ": secret123", "Bad Name: secret123", "connectapitoken: secret123"} {
		_, err := ParseHeaders([]string{line})
		if err == nil {
			t.Errorf("%q accepted", line)
			continue
		}
		if strings.Contains(err.Error(), "secret123") {
			t.Errorf("%q: the error shows the value: %v", line, err)
		}
	}
}

func TestPathsOverride(t *testing.T) {
	p, err := ParsePaths([]byte(`{"RemoveTickets":"POST RESTTicketing.svc/order/removetickets","ListSessions":"GET OData.svc/Sessions?$filter=CinemaId eq '{cinemaId}' and AllowTicketSales eq true"}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.RequestURI())
		w.Write([]byte(`{"Result":0,"value":[],"Order":null}`))
	}))
	defer srv.Close()
	c, err := New(srv.URL+"/WSVistaWebClient", testToken, append(fastOpts(), WithPaths(p))...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c.learnCinema("0001", "EUR", time.UTC)
	if _, err := c.RemoveTickets(ctx, RemoveTicketsRequest{UserSessionID: "u", SessionID: "1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListSessions(ctx, "0001", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetOrder(ctx, "u"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"POST /WSVistaWebClient/RESTTicketing.svc/order/removetickets",
		"GET /WSVistaWebClient/OData.svc/Sessions?$filter=CinemaId%20eq%20'0001'%20and%20AllowTicketSales%20eq%20true",
		"GET /WSVistaWebClient/OData.svc/ScheduledFilms?$filter=CinemaId%20eq%20'0001'",
		"POST /WSVistaWebClient/RESTTicketing.svc/order",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	for _, bad := range []string{`{"Nope":"GET x"}`, `{"GetOrder":"DELETE x"}`, `{"GetOrder":"POST"}`, `[]`} {
		if _, err := ParsePaths([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestQuotesInODataFilterAreDoubled(t *testing.T) {
	_, _, q, err := DefaultPaths().target(OpListSessions, routeParams{"cinemaId": "O'Brien&x=1"})
	if err != nil {
		t.Fatal(err)
	}
	if q != "$filter=CinemaId%20eq%20'O''Brien%26x%3D1'" {
		t.Errorf("query = %s", q)
	}
}

func TestBadReplyNamesTheFieldAndIsNoOutage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ResultCode":0,"Booking":{"BookingNumber":100002,"Tickets":[{"TicketSequenceNumber":"first"}]}}`))
	}))
	defer srv.Close()
	c, err := New(srv.URL, testToken, append(fastOpts(), WithBreaker(BreakerSettings{ConsecutiveFailures: 2, OpenTimeout: time.Minute}))...)
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		_, err = c.GetSingleBooking(context.Background(), "0001", 100002)
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrBadReply) || !errors.Is(err, ErrUnavailable) || e.Op != OpGetSingleBooking {
		t.Fatalf("err = %v", err)
	}
	if e.Field != "Booking.Tickets.TicketSequenceNumber" {
		t.Errorf("field = %q", e.Field)
	}
	if c.Ready() != nil {
		t.Error("replies we cannot read tripped the breaker")
	}
}

func TestOutagesTripTheBreakerAndAreRetried(t *testing.T) {
	var n int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	c, err := New(srv.URL, testToken, append(fastOpts(), WithBreaker(BreakerSettings{ConsecutiveFailures: 3, OpenTimeout: time.Minute}))...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetOrder(context.Background(), "u")
	if !errors.Is(err, ErrUnavailable) || n != 3 {
		t.Errorf("502: err %v after %d attempts, want 3 (a read is retried)", err, n)
	}
	if c.Ready() == nil {
		t.Error("three 502s in a row did not open the breaker")
	}
}
