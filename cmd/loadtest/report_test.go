package main

import (
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestFailuresNameThePagesThatErred(t *testing.T) {
	ok := pageResult{name: "booking", metrics: vegeta.Metrics{Requests: 10, StatusCodes: map[string]int{"200": 10}}}
	if err := failures([]pageResult{ok}, nil); err != nil {
		t.Fatalf("all 200: %v", err)
	}
	bad := pageResult{name: "seatmap", metrics: vegeta.Metrics{Requests: 10, StatusCodes: map[string]int{"200": 8, "502": 1, "0": 1},
		Errors: []string{"status 502"}}}
	err := failures([]pageResult{ok, bad}, nil)
	if err == nil || !strings.Contains(err.Error(), "seatmap: 2 of 10 failed") || strings.Contains(err.Error(), "booking") {
		t.Fatalf("want only seatmap named with 2 failures, got %v", err)
	}
	watch := &watchResult{metrics: vegeta.Metrics{Requests: 4, StatusCodes: map[string]int{"500": 4}}}
	if err := failures([]pageResult{ok}, watch); err == nil || !strings.Contains(err.Error(), "4 of 4 polls failed") {
		t.Fatalf("failed polls not reported: %v", err)
	}
}

func TestPurchaseSessionsSpreadOverTheCinema(t *testing.T) {
	seen := map[int]bool{}
	for i := range 24 {
		s := purchaseSession(i)
		if s < 1011 || s > 1323 || s%10 < 1 || s%10 > 3 || (s/10)%10 < 1 || (s/10)%10 > 2 {
			t.Fatalf("visitor %d: %d is not a session of cinema 0001's default world", i, s)
		}
		seen[s] = true
	}
	if len(seen) != 24 {
		t.Fatalf("24 visitors use %d sessions, want all 24", len(seen))
	}
}

func TestListingLineIsPerCinemaPer30s(t *testing.T) {
	r := pageResult{name: "whats-on", cinemas: 1, counted: true, calls: map[string]int64{"Sessions": 1, "Films": 1, "TicketTypes": 9},
		metrics: vegeta.Metrics{Requests: 2000}}
	got := listingLine(r, 10*time.Second)
	if !strings.Contains(got, "1 Sessions + 1 Films") || !strings.Contains(got, "= 6.00 calls per cinema per 30 s") {
		t.Fatalf("%s", got)
	}
}

func TestReportSaysCountsAreMissingWithoutTheSandbox(t *testing.T) {
	var b strings.Builder
	r := pageResult{name: "whats-on", cinemas: 1, metrics: vegeta.Metrics{Requests: 10}}
	printPages(&b, config{Target: "http://lb", Duration: time.Second}, []pageResult{r})
	if !strings.Contains(b.String(), "not available") || strings.Contains(b.String(), "calls per cinema") {
		t.Fatalf("%s", b.String())
	}
}

func TestWholeRunListing(t *testing.T) {
	rs := []pageResult{{name: "whats-on", cinemas: 1}, {name: "booking"}}
	got := wholeRunListing(rs, map[string]int64{"Sessions": 3, "Films": 3}, map[string]int64{"Sessions": 5, "Films": 5}, 45*time.Second)
	if !strings.Contains(got, "2 Sessions + 2 Films over 45s") || !strings.Contains(got, "within at most 2 per cinema per 30 s (1 × 2 × 2 = 4)") {
		t.Fatal(got)
	}
	if got := wholeRunListing(rs, nil, map[string]int64{"Sessions": 3, "Films": 3}, 45*time.Second); !strings.Contains(got, "OVER") {
		t.Fatal(got)
	}
	if wholeRunListing(rs[1:], nil, nil, time.Second) != "" {
		t.Fatal("a run without listing pages has no listing line")
	}
}
