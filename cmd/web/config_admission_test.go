package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestAdmissionSettings: no line by default; the limits and the sales openings come from flags
// or the environment and reach the site; a bad opening or a negative limit stops the start with
// the setting named.
func TestAdmissionSettings(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	if err != nil || c.AdmitPerMinute != 0 || c.AdmitActive != 0 || len(siteConfig(c).SalesOpen) != 0 {
		t.Fatalf("default: %+v %v", c, err)
	}
	env := map[string]string{"CINEMA_ADMIT_PER_MINUTE": "120", "CINEMA_ADMIT_ACTIVE": "50",
		"CINEMA_SALES_OPEN": "1011=2026-12-24T10:00:00+01:00,0002-1012=2026-12-24T12:00:00+01:00"}
	c, err = parseConfig(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	site := siteConfig(c)
	if site.AdmitPerMinute != 120 || site.AdmitActive != 50 || !site.SalesOpen.Of("0001", "1011").Equal(time.Date(2026, 12, 24, 9, 0, 0, 0, time.UTC)) ||
		site.SalesOpen.Of("0002", "1012").IsZero() {
		t.Fatalf("site config %+v %+v", site.SalesOpen, site)
	}
	for _, bad := range [][]string{{"-sales-open", "1011=tomorrow"}, {"-sales-open", "1011"}, {"-admit-per-minute", "-1"}, {"-admit-active", "-5"}} {
		_, err := parseConfig(bad, none, io.Discard)
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(bad[0], "-")) {
			t.Errorf("%v: %v", bad, err)
		}
	}
}
