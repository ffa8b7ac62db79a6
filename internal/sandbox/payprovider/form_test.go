package payprovider

import (
	"net/url"
	"reflect"
	"testing"
)

func TestSplitKey(t *testing.T) {
	tests := []struct {
		key  string
		want []string
		ok   bool
	}{
		{"mode", []string{"mode"}, true},
		{"metadata[booking]", []string{"metadata", "booking"}, true},
		{"line_items[0][price_data][currency]", []string{"line_items", "0", "price_data", "currency"}, true},
		{"expand[]", []string{"expand", ""}, true},
		{"[x]", nil, false},
		{"a[b", nil, false},
		{"a[b]c", nil, false},
		{"a[b[c]]", nil, false},
		{"", nil, false},
	}
	for _, tc := range tests {
		got, ok := splitKey(tc.key)
		if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("splitKey(%q) = %q %v, want %q %v", tc.key, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseParams(t *testing.T) {
	f := parseParams(url.Values{
		"expand[]":                 {"payment_intent", "payment_intent.latest_charge"},
		"line_items[1][quantity]":  {"2"},
		"line_items[0][quantity]":  {"1"},
		"line_items[10][quantity]": {"3"},
		"metadata[a]":              {"1"},
		"metadata[b]":              {"2"},
	})
	if got := f.expandList(); !reflect.DeepEqual(got, []string{"payment_intent", "payment_intent.latest_charge"}) {
		t.Errorf("expand %q", got)
	}
	var qty []string
	for _, it := range f.elems("line_items") {
		v, _ := it.str("quantity")
		qty = append(qty, v)
	}
	if !reflect.DeepEqual(qty, []string{"1", "2", "3"}) {
		t.Errorf("line items in order %q", qty)
	}
	if md := f.strMap("metadata"); !reflect.DeepEqual(md, map[string]string{"a": "1", "b": "2"}) {
		t.Errorf("metadata %v", md)
	}
	schema := hash(map[string]*param{"expand": list(scalar), "metadata": strMap, "line_items": list(hash(map[string]*param{"quantity": scalar}))})
	if err := f.check(schema, ""); err != nil {
		t.Errorf("check: %+v", err)
	}
	for name, v := range map[string]url.Values{
		"line_items[0][price]": {"line_items[0][price]": {"x"}},
		"metadata[a]":          {"metadata[a][b]": {"x"}},
		"line_items":           {"line_items[x][quantity]": {"1"}},
		"expand":               {"expand": {"payment_intent"}},
	} {
		err := parseParams(v).check(schema, "")
		if err == nil || err.Param != name {
			t.Errorf("%v: error %+v, want one about %s", v, err, name)
		}
	}
	// An empty value unsets a hash or array: accepted.
	if err := parseParams(url.Values{"metadata": {""}, "expand": {""}}).check(schema, ""); err != nil {
		t.Errorf("empty values: %+v", err)
	}
}

func TestTestCards(t *testing.T) {
	tests := []struct {
		number, brand, last4, decline, invalid string
	}{
		{"4242 4242 4242 4242", "visa", "4242", "", ""},
		{"5555-5555-5555-4444", "mastercard", "4444", "", ""},
		{"2223003122003222", "mastercard", "3222", "", ""},
		{"378282246310005", "amex", "0005", "", ""},
		{"6011111111111117", "discover", "1117", "", ""},
		{"4000000000000002", "", "", "generic_decline", ""},
		{"4000000000009995", "", "", "insufficient_funds", ""},
		{"4000000000009987", "", "", "lost_card", ""},
		{"4000000000000069", "", "", "expired_card", ""},
		{"4242424242424241", "", "", "", "Your card number is invalid."},
		{"42", "", "", "", "Your card number is invalid."},
	}
	for _, tc := range tests {
		c, decl, bad := testCard(tc.number)
		gotDecline := ""
		if decl != nil {
			gotDecline = decl.declineCode
		}
		if c.brand != tc.brand || c.last4 != tc.last4 || gotDecline != tc.decline || bad != tc.invalid {
			t.Errorf("testCard(%q) = %+v %q %q", tc.number, c, gotDecline, bad)
		}
	}
}

func TestMaskKey(t *testing.T) {
	for key, want := range map[string]string{
		"sk_test_wrongwrongwrong1234": "sk_test_***************1234",
		"sk_test_short":               "sk_test_*****",
		"sandbox-pay-key":             "***********-key",
		"abc":                         "****",
	} {
		if got := maskKey(key); got != want {
			t.Errorf("maskKey(%q) = %q, want %q", key, got, want)
		}
	}
}
