package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestHoldLimitSettings: -max-seats-per-visit, -max-orders-per-client and -hold-lifetime, with
// their environment variables.
func TestHoldLimitSettings(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	if err != nil || c.MaxSeatsPerVisit != 10 || c.MaxOrdersPerClient != 3 || c.HoldLifetime != 20*time.Minute {
		t.Fatalf("defaults: %d %d %v %v", c.MaxSeatsPerVisit, c.MaxOrdersPerClient, c.HoldLifetime, err)
	}
	env := map[string]string{"CINEMA_MAX_SEATS_PER_VISIT": "6", "CINEMA_MAX_ORDERS_PER_CLIENT": " 2 ", "CINEMA_HOLD_LIFETIME": "15m"}
	getenv := func(k string) string { return env[k] }
	c, err = parseConfig(nil, getenv, io.Discard)
	if err != nil || c.MaxSeatsPerVisit != 6 || c.MaxOrdersPerClient != 2 || c.HoldLifetime != 15*time.Minute {
		t.Fatalf("environment: %d %d %v %v", c.MaxSeatsPerVisit, c.MaxOrdersPerClient, c.HoldLifetime, err)
	}
	c, err = parseConfig([]string{"-max-seats-per-visit", "12", "-max-orders-per-client", "5", "-hold-lifetime", "30m"}, getenv, io.Discard)
	if err != nil || c.MaxSeatsPerVisit != 12 || c.MaxOrdersPerClient != 5 || c.HoldLifetime != 30*time.Minute {
		t.Fatalf("flags: %d %d %v %v", c.MaxSeatsPerVisit, c.MaxOrdersPerClient, c.HoldLifetime, err)
	}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"-max-seats-per-visit", "0"}, nil, "max-seats-per-visit"},
		{[]string{"-max-orders-per-client", "-1"}, nil, "max-orders-per-client"},
		{[]string{"-max-seats-per-visit", "ten"}, nil, "max-seats-per-visit"},
		{nil, map[string]string{"CINEMA_MAX_ORDERS_PER_CLIENT": "three"}, "CINEMA_MAX_ORDERS_PER_CLIENT"},
		{[]string{"-hold-lifetime", "30s"}, nil, "hold-lifetime"},
	} {
		_, err := parseConfig(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: got %v, want an error naming %s", tc.args, tc.env, err, tc.want)
		}
	}
}
