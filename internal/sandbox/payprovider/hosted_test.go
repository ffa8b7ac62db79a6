package payprovider

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func (e *env) getPage(id string) (*http.Response, string) {
	e.t.Helper()
	res, err := e.c.Get(e.srv.URL + "/pay/checkout/" + id)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return res, string(b)
}

func TestHostedPage(t *testing.T) {
	e := newEnv(t)
	st, out := e.api("POST", "/api/payments", map[string]any{
		"amountInCents": 123450, "currency": "EUR", "returnUrl": "https://shop.example:8443/return",
		"reference": "BOOKING-<42>", "description": "2 tickets",
	})
	if st != http.StatusCreated {
		t.Fatalf("create: %d %v", st, out)
	}
	id := out["id"].(string)
	res, body := e.getPage(id)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	headers := map[string]string{
		"Content-Type":           "text/html; charset=utf-8",
		"Cache-Control":          "no-store",
		"X-Content-Type-Options": "nosniff",
	}
	for k, v := range headers {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(body)
	if style == nil {
		t.Fatal("no <style> element")
	}
	sum := sha256.Sum256([]byte(style[1]))
	for _, want := range []string{
		"default-src 'none'",
		"style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'",
		"form-action 'self' https://shop.example:8443",
	} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	contains := []string{
		`<html lang="en">`,
		`<title>Sandbox payment</title>`,
		`<h1>Sandbox payment</h1>`,
		`BOOKING-&lt;42&gt;`,
		`€1,234.50`,
		`Test provider.`,
		`<form method="post" action="` + id + `">`,
		`<button type="submit" name="action" value="pay" class="pay">Pay</button>`,
		`<button type="submit" name="action" value="decline">Decline</button>`,
		`<button type="submit" name="action" value="cancel">Cancel</button>`,
	}
	for _, want := range contains {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, banned := range []string{"<script", "src=", "<link", "style=", "http://", "https://"} {
		if strings.Contains(body, banned) {
			t.Errorf("page contains %q", banned)
		}
	}
	if n := strings.Count(body, "<form"); n != 1 {
		t.Errorf("%d forms, want 1", n)
	}

	res, body = e.getPage("pay_unknown")
	if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "Payment not found") || res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("unknown payment: %d %q", res.StatusCode, body)
	}
}

func TestCheckoutActions(t *testing.T) {
	tests := []struct {
		action     string
		wantStatus Status
		wantCard   string
	}{
		{"pay", StatusPaid, "************4242"},
		{"decline", StatusDeclined, ""},
		{"cancel", StatusCancelled, ""},
	}
	for _, tc := range tests {
		t.Run(tc.action, func(t *testing.T) {
			e := newEnv(t)
			id := e.createPayment(500)["id"].(string)
			before, _ := e.p.Get(id)

			res := e.postAction(id, tc.action)
			if res.StatusCode != http.StatusSeeOther {
				t.Fatalf("status %d", res.StatusCode)
			}
			if res.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", res.Header.Get("Cache-Control"))
			}
			loc, err := url.Parse(res.Header.Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			if got := loc.Scheme + "://" + loc.Host + loc.Path; got != "https://shop.example/return" {
				t.Errorf("redirect to %s", got)
			}
			wantQuery := "order=42&token=" + before.Token + "&status=" + string(tc.wantStatus)
			if loc.RawQuery != wantQuery {
				t.Errorf("query %q, want %q", loc.RawQuery, wantQuery)
			}
			after, _ := e.p.Get(id)
			if after.Status != tc.wantStatus || after.CardNumberMasked != tc.wantCard {
				t.Errorf("payment %s card %q", after.Status, after.CardNumberMasked)
			}
			if tc.wantCard != "" && after.CardType != "VISA" {
				t.Errorf("card type %q", after.CardType)
			}

			// A repeat (any action) redirects again and changes nothing.
			for _, again := range []string{"pay", "decline", "cancel"} {
				res := e.postAction(id, again)
				if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != loc.String() {
					t.Errorf("repeat %s: %d %s", again, res.StatusCode, res.Header.Get("Location"))
				}
			}
			if now, _ := e.p.Get(id); now != after {
				t.Errorf("repeat changed the payment: %+v", now)
			}

			// The page of a decided payment shows the state, no form.
			_, body := e.getPage(id)
			if strings.Contains(body, "<form") || !strings.Contains(body, "This payment is "+string(tc.wantStatus)) {
				t.Errorf("decided page: %s", body)
			}
		})
	}
}

func TestCheckoutErrors(t *testing.T) {
	e := newEnv(t)
	id := e.createPayment(500)["id"].(string)
	tests := []struct {
		name, id, action string
		want             int
	}{
		{"bad action", id, "refund", http.StatusBadRequest},
		{"empty action", id, "", http.StatusBadRequest},
		{"unknown payment", "pay_unknown", "pay", http.StatusNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := e.postAction(tc.id, tc.action)
			if res.StatusCode != tc.want {
				t.Errorf("status %d, want %d", res.StatusCode, tc.want)
			}
			if res.Header.Get("Content-Security-Policy") == "" {
				t.Error("no CSP on the error page")
			}
		})
	}
	if pay, _ := e.p.Get(id); pay.Status != StatusPending {
		t.Errorf("status %s after bad posts", pay.Status)
	}
	req, _ := http.NewRequest("PUT", e.srv.URL+"/pay/checkout/"+id, nil)
	if res, err := e.c.Do(req); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("PUT: %v %v", res, err)
	} else {
		res.Body.Close()
	}
}

func TestFormatAmount(t *testing.T) {
	tests := []struct {
		cents    int64
		currency string
		want     string
	}{
		{500, "EUR", "€5.00"},
		{5, "EUR", "€0.05"},
		{123456789, "EUR", "€1,234,567.89"},
		{1999, "GBP", "£19.99"},
		{1999, "USD", "US$19.99"},
		{1500, "JPY", "JPY 1,500"},
		{1500, "KWD", "KWD 1.500"},
		{100000, "CHF", "CHF 1,000.00"},
	}
	for _, tc := range tests {
		if got := formatAmount(tc.cents, tc.currency); got != tc.want {
			t.Errorf("formatAmount(%d, %s) = %q, want %q", tc.cents, tc.currency, got, tc.want)
		}
	}
}
