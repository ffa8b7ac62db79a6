package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestStuckOrderSettings: -order-watch-for / CINEMA_ORDER_WATCH_FOR and -failed-order-policy /
// CINEMA_FAILED_ORDER_POLICY.
func TestStuckOrderSettings(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	if err != nil || c.OrderWatchFor != 24*time.Hour || c.FailedOrderPolicy != "" {
		t.Fatalf("defaults: %v %q %v", c.OrderWatchFor, c.FailedOrderPolicy, err)
	}
	env := map[string]string{"CINEMA_ORDER_WATCH_FOR": "6h", "CINEMA_FAILED_ORDER_POLICY": "  Ask at the box office.  "}
	c, err = parseConfig(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || c.OrderWatchFor != 6*time.Hour || c.FailedOrderPolicy != "Ask at the box office." {
		t.Fatalf("environment: %v %q %v", c.OrderWatchFor, c.FailedOrderPolicy, err)
	}
	c, err = parseConfig([]string{"-order-watch-for", "48h", "-failed-order-policy", "We pay back within 5 days."}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || c.OrderWatchFor != 48*time.Hour || c.FailedOrderPolicy != "We pay back within 5 days." {
		t.Fatalf("flags: %v %q %v", c.OrderWatchFor, c.FailedOrderPolicy, err)
	}
	for _, bad := range []string{"0s", "30s", "-1h"} {
		if _, err := parseConfig([]string{"-order-watch-for", bad}, none, io.Discard); err == nil || !strings.Contains(err.Error(), "order-watch-for") {
			t.Errorf("-order-watch-for %s: %v", bad, err)
		}
	}
}

// TestAttentionAfterSetting: -attention-after / CINEMA_ATTENTION_AFTER, 10m by
// default, at least 1m and not longer than -order-watch-for.
func TestAttentionAfterSetting(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	if err != nil || c.AttentionAfter != 10*time.Minute {
		t.Fatalf("default: %v %v", c.AttentionAfter, err)
	}
	env := map[string]string{"CINEMA_ATTENTION_AFTER": "3m"}
	if c, err = parseConfig(nil, func(k string) string { return env[k] }, io.Discard); err != nil || c.AttentionAfter != 3*time.Minute {
		t.Fatalf("environment: %v %v", c.AttentionAfter, err)
	}
	if c, err = parseConfig([]string{"-attention-after", "1m"}, func(k string) string { return env[k] }, io.Discard); err != nil || c.AttentionAfter != time.Minute {
		t.Fatalf("flag: %v %v", c.AttentionAfter, err)
	}
	for _, bad := range [][]string{{"-attention-after", "30s"}, {"-attention-after", "0s"}, {"-attention-after", "2h", "-order-watch-for", "1h"}} {
		if _, err := parseConfig(bad, none, io.Discard); err == nil || !strings.Contains(err.Error(), "attention-after") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}
